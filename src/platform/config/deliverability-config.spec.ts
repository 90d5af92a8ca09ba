import { loadConfig } from './config';

const base = { HERALD_SECRET: 'deliverability-config-spec-0123456789abcdef' };

describe('deliverability configuration', () => {
  it('has inbound mail and every provider webhook off by default', () => {
    const { deliverability } = loadConfig(base);
    expect(deliverability).toEqual({
      inboundSmtp: undefined,
      providerWebhooks: {
        snsTopicArns: undefined,
        snsCertUrlPrefixes: undefined,
        postmark: undefined,
        sendgridPublicKey: undefined,
        mailgunSigningKey: undefined,
      },
      reputationGuard: { complaintRateLimit: 0.003, bounceRateLimit: 0.05, minDelivered: 500 },
    });
  });

  it('reads the reputation guard limits', () => {
    const { deliverability } = loadConfig({
      ...base,
      COMPLAINT_RATE_LIMIT: '0.001',
      BOUNCE_RATE_LIMIT: '.1',
      RATE_GUARD_MIN_DELIVERED: '20',
    });
    expect(deliverability.reputationGuard).toEqual({
      complaintRateLimit: 0.001,
      bounceRateLimit: 0.1,
      minDelivered: 20,
    });
  });

  it('reads the variables', () => {
    const { deliverability } = loadConfig({
      ...base,
      INBOUND_SMTP_PORT: '2525',
      SNS_TOPIC_ARNS:
        'arn:aws:sns:eu-west-1:123456789012:ses-feedback, arn:aws-cn:sns:cn-north-1:123456789012:b.fifo',
      SNS_CERT_URL_PREFIXES: 'https://sns.eu-west-1.amazonaws.com/, https://certs.example/',
      POSTMARK_WEBHOOK_USER: 'u',
      POSTMARK_WEBHOOK_PASSWORD: 'p',
    });
    expect(deliverability).toMatchObject({
      inboundSmtp: { port: 2525, host: '0.0.0.0', maxBytes: 10 * 1024 * 1024 },
      providerWebhooks: {
        snsTopicArns: [
          'arn:aws:sns:eu-west-1:123456789012:ses-feedback',
          'arn:aws-cn:sns:cn-north-1:123456789012:b.fifo',
        ],
        snsCertUrlPrefixes: ['https://sns.eu-west-1.amazonaws.com/', 'https://certs.example/'],
        postmark: { user: 'u', password: 'p' },
      },
    });
  });

  it.each([
    [{ INBOUND_SMTP_PORT: '70000' }, 'INBOUND_SMTP_PORT'],
    [{ INBOUND_MAX_BYTES: '10MB' }, 'INBOUND_MAX_BYTES'],
    [{ INBOUND_MAX_BYTES: '100' }, 'INBOUND_MAX_BYTES'],
    // A prefix that does not pin the host would trust any look-alike domain.
    [{ SNS_CERT_URL_PREFIXES: 'https://sns.' }, 'SNS_CERT_URL_PREFIXES'],
    [{ SNS_CERT_URL_PREFIXES: 'http://sns.eu-west-1.amazonaws.com/' }, 'SNS_CERT_URL_PREFIXES'],
    [{ POSTMARK_WEBHOOK_USER: 'u' }, 'POSTMARK_WEBHOOK_PASSWORD'],
    [{ SNS_TOPIC_ARNS: 'ses-feedback' }, 'SNS_TOPIC_ARNS'],
    [{ SNS_TOPIC_ARNS: 'arn:aws:sns:eu-west-1:123456789012:*' }, 'SNS_TOPIC_ARNS'],
    [{ COMPLAINT_RATE_LIMIT: '0' }, 'COMPLAINT_RATE_LIMIT'],
    [{ COMPLAINT_RATE_LIMIT: '0.3%' }, 'COMPLAINT_RATE_LIMIT'],
    [{ BOUNCE_RATE_LIMIT: '5' }, 'BOUNCE_RATE_LIMIT'],
    [{ RATE_GUARD_MIN_DELIVERED: '0' }, 'RATE_GUARD_MIN_DELIVERED'],
    [{ RATE_GUARD_MIN_DELIVERED: '1e3' }, 'RATE_GUARD_MIN_DELIVERED'],
  ])('refuses %j, naming %s', (env, variable) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(variable);
  });
});
