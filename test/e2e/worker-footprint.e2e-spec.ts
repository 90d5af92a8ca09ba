import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from '../support/processes';

const run = promisify(execFile);

/** Loads a compiled file in a fresh Node.js and answers every module file it loaded. */
async function modulesLoadedBy(file: string): Promise<string[]> {
  const script = `require(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)))`;
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: ROOT });
  return (JSON.parse(stdout) as string[]).map((path) => path.slice(ROOT.length + 1));
}

/**
 * A worker's memory is what a deployment runs many of: its module graph (from
 * dist/worker.module.js, everything a worker process loads before its first job) holds no
 * controller, no request DTO and none of the libraries that validate requests. Those load only
 * where they are used: the API, or (the subscriber DTO's rules) an import's first run.
 */
describe("a worker process's module graph", () => {
  let loaded: string[];

  beforeAll(async () => {
    loaded = await modulesLoadedBy('./dist/worker.module.js');
  });

  it('loads the send path', () => {
    expect(loaded).toContain('dist/campaigns/delivery/campaign-delivery.processor.js');
    expect(loaded).toContain('dist/transactional/transactional-send.processor.js');
  });

  it('loads no controller and no request DTO', () => {
    expect(loaded.filter((path) => /^dist\/.*(controller|\.dto)\.js$/.test(path))).toEqual([]);
  });

  it('loads none of the request validators', () => {
    const validators = /node_modules\/(class-validator|class-transformer|libphonenumber-js)\//;
    expect(loaded.filter((path) => validators.test(path))).toEqual([]);
  });
});
