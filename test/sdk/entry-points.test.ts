import path from 'node:path';
import { expect } from 'chai';
import { createTypeScriptProject, REPO_DIR, type TypeScriptProject } from './typescript-project.js';
import { requireProcesses } from '../helpers/fast-run.js';

/**
 * A browser's or an edge runtime's project: the DOM library, no `@types/node`, no dependencies at
 * all. If anything reachable from the main entry used a Node API (`node:*`, `Buffer`, `process`),
 * it would not compile here; and what compiles here cannot put a Node type in the declarations.
 */
const WITHOUT_NODE = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM'],
    types: [],
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
  },
  files: [path.join(REPO_DIR, 'sdk/src/index.ts')],
};

describe('the SDK main entry', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(60_000);
  let project: TypeScriptProject | undefined;
  afterEach(() => project?.remove());

  it('uses only fetch and Web APIs: everything it imports compiles without Node', async () => {
    project = createTypeScriptProject({ 'tsconfig.json': JSON.stringify(WITHOUT_NODE) }, { linkDependencies: false });
    expect(await project.typecheck()).to.equal('');
  });
});
