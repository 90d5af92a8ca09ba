import { isPrivateAddress, privateAddressOf } from './webhook-address';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-address',
    ]) {
      expect([address, isPrivateAddress(address)]).toEqual([address, true]);
    }
  });

  it('lets public addresses through', () => {
    for (const address of ['93.184.216.34', '1.1.1.1', '172.32.0.1', '2606:4700::1111']) {
      expect([address, isPrivateAddress(address)]).toEqual([address, false]);
    }
  });

  it('checks literal hosts and localhost names without DNS', async () => {
    expect(await privateAddressOf('127.0.0.1')).toBe('127.0.0.1');
    expect(await privateAddressOf('[::1]')).toBe('::1');
    expect(await privateAddressOf('localhost')).toBe('127.0.0.1');
    expect(await privateAddressOf('93.184.216.34')).toBeUndefined();
  });
});
