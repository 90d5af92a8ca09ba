import { simpleParser } from 'mailparser';
import { abuseReport, deliveryReport } from '../../test/support/feedback-mail';
import { fieldBlocks, PARSER_OPTIONS, readReport } from './report-reader';

const parse = (raw: string) => simpleParser(Buffer.from(raw), PARSER_OPTIONS);
const original = 'Return-Path: <b-token@bounces.test>\r\nSubject: Hello\r\n\tfolded';

describe('readReport', () => {
  it('reads a 5.x.x failure as a hard bounce and a 4.x.x failure as a soft one', async () => {
    const hard = deliveryReport({ to: 'x@b.test', finalRecipient: 'a@b.test', status: '5.1.1' });
    expect(readReport(await parse(hard))).toEqual({ type: 'bounce', hard: true, status: '5.1.1' });
    const soft = deliveryReport({ to: 'x@b.test', finalRecipient: 'a@b.test', status: '4.2.2' });
    expect(readReport(await parse(soft))).toEqual({ type: 'bounce', hard: false, status: '4.2.2' });
  });

  it('does not count a delay warning or a delivery notice as a bounce', async () => {
    for (const action of ['delayed', 'delivered'] as const) {
      const raw = deliveryReport({
        to: 'x@b.test',
        finalRecipient: 'a@b.test',
        status: action === 'delayed' ? '4.4.7' : '2.0.0',
        action,
      });
      expect(readReport(await parse(raw))).toMatchObject({ type: 'other' });
    }
  });

  it('reads an abuse report with the complained-about headers, unfolded', async () => {
    const raw = abuseReport({ to: 'fbl@b.test', originalHeaders: original });
    expect(readReport(await parse(raw))).toEqual({
      type: 'complaint',
      feedbackType: 'abuse',
      originalHeaders: 'Return-Path: <b-token@bounces.test>\r\nSubject: Hello folded',
    });
  });

  it('ignores not-spam reports and mail that is no report at all', async () => {
    const notSpam = abuseReport({
      to: 'f@b.test',
      originalHeaders: original,
      feedbackType: 'not-spam',
    });
    expect(readReport(await parse(notSpam))).toEqual({
      type: 'other',
      why: 'feedback type not-spam',
    });
    const reply = 'From: a@b.test\r\nSubject: Out of office\r\n\r\nI am away.\r\n';
    expect(readReport(await parse(reply))).toEqual({ type: 'other', why: 'not a report' });
  });
});

describe('fieldBlocks', () => {
  it('splits blocks, lower-cases names, joins folded lines and strips status comments', () => {
    expect(
      fieldBlocks(
        'Reporting-MTA: dns; a\r\n\r\nAction: failed\r\nStatus: 5.1.1 (unknown)\r\nX: a\r\n b\r\n',
      ),
    ).toEqual([
      new Map([['reporting-mta', 'dns; a']]),
      new Map([
        ['action', 'failed'],
        ['status', '5.1.1'],
        ['x', 'a b'],
      ]),
    ]);
  });
});
