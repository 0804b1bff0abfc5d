import { missingMessage, sharedPath, underCi } from './helpers/shared';

/** Missing shared test data: under CI the test file fails saying where to get it; locally its tests are skipped. */
describe('shared test data', () => {
  test('underCi: CI set to anything but "", "0" or "false"', () => {
    expect([undefined, '', '0', 'false', 'FALSE', '1', 'true', 'yes'].map((CI) => underCi(CI === undefined ? {} : { CI }))).toEqual([
      false, false, false, false, false, true, true, true,
    ]);
  });

  test('a missing conformance suite under CI throws a message naming its repository and MCPGW_SHARED_DIR', () => {
    expect(() => sharedPath('conformance/nowhere.json', { CI: 'true' })).toThrow(/Shared test data missing: .*conformance\/nowhere\.json.*MCPGW_SHARED_DIR/);
    expect(missingMessage('conformance/jsonpath-cts.json', '/data')).toBe(
      'Shared test data missing: /data/conformance/jsonpath-cts.json. Get cts.json of ' +
      'https://github.com/jsonpath-standard/jsonpath-compliance-test-suite (commit 7be7c1f), put it at ' +
      'conformance/jsonpath-cts.json in a shared data folder and set MCPGW_SHARED_DIR to that folder ' +
      '(default: "shared" beside the repository).',
    );
    expect(missingMessage('conformance/JSONTestSuite/test_parsing', '/data')).toContain('https://github.com/nst/JSONTestSuite');
  });

  test('a missing piece outside CI is null (the caller registers one skipped test naming it)', () => {
    expect(sharedPath('conformance/nowhere.json', {})).toBeNull();
  });
});
