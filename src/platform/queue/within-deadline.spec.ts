import { QueueDeadlineError, withinDeadline } from './within-deadline';

describe('withinDeadline', () => {
  it('passes a result or failure that comes in time', async () => {
    await expect(withinDeadline(Promise.resolve(7), 1000, 'job')).resolves.toBe(7);
    await expect(withinDeadline(Promise.reject(new Error('no')), 1000, 'job')).rejects.toThrow(
      'no',
    );
  });

  it('gives up on a write that hangs, and a late failure stays handled', async () => {
    let fail: (error: Error) => void = () => undefined;
    const hanging = new Promise<never>((_, reject) => (fail = reject));
    await expect(withinDeadline(hanging, 20, 'the job')).rejects.toThrow(QueueDeadlineError);
    fail(new Error('late'));
    await expect(hanging).rejects.toThrow('late');
  });
});
