import { randomBytes } from 'node:crypto';
import { SecretBox } from '../platform/crypto/secret-box';

/** A new signing secret as Standard Webhooks writes them: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Seals endpoint secrets; bound to the endpoint id, so a sealed value copied elsewhere fails. */
export class WebhookSecretBox {
  private readonly box: SecretBox;

  constructor(masterSecret: string) {
    this.box = new SecretBox(masterSecret, 'webhook-endpoint-secret');
  }

  seal(secret: string, endpointId: string): string {
    return this.box.seal(secret, endpointId);
  }

  open(sealed: string, endpointId: string): string {
    return this.box.open(sealed, endpointId);
  }
}
