import { hashPassword, verifyPassword } from './password-hasher';

describe('password hashing on its own thread', () => {
  it('hashes with bcrypt cost 12 and verifies only the right password', async () => {
    const hash = await hashPassword('a long and careful passphrase');
    expect(hash).toMatch(/^\$2[aby]\$12\$/);
    await expect(verifyPassword('a long and careful passphrase', hash)).resolves.toBe(true);
    await expect(verifyPassword('a long and careful passphrasE', hash)).resolves.toBe(false);
  });

  it('answers false for an unknown person, after the same work as a real check', async () => {
    await expect(verifyPassword('whatever it is typed', undefined)).resolves.toBe(false);
  });

  it('runs several tasks at once and answers each its own', async () => {
    const [a, b] = await Promise.all([
      hashPassword('first passphrase'),
      hashPassword('second one!'),
    ]);
    const checks = await Promise.all([
      verifyPassword('first passphrase', a),
      verifyPassword('second one!', a),
      verifyPassword('second one!', b),
    ]);
    expect(checks).toEqual([true, false, true]);
  });
});
