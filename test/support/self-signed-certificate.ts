export {
  selfSignedCertificate,
  type SelfSignedCertificate as TestCertificate,
} from '../../src/platform/crypto/self-signed-certificate';
