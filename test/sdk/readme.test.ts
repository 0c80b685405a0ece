import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { CONSUMER_TSCONFIG, createTypeScriptProject, REPO_DIR, type TypeScriptProject } from './typescript-project.js';
import { requireProcesses } from '../helpers/fast-run.js';

const README = path.join(REPO_DIR, 'sdk/README.md');

/**
 * The README's TypeScript examples as modules: a block that imports starts a module, a block
 * without imports continues the one before it (as the README says). Fences are found by line:
 * the README is ours, and its fences are plain ```ts … ``` (no nesting, no indented fences).
 */
function readmeModules(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  const modules: string[] = [];
  for (const block of blocks) {
    if (/^import /m.test(block) || modules.length === 0) modules.push(block);
    else modules[modules.length - 1] += `\n${block}`;
  }
  return modules;
}

describe("the SDK README's TypeScript examples", function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(60_000);
  let project: TypeScriptProject | undefined;
  afterEach(() => project?.remove());

  it('compile as written under strict and exactOptionalPropertyTypes', async () => {
    const markdown = fs.readFileSync(README, 'utf8');
    const modules = readmeModules(markdown);
    // Every TypeScript fence is one the extraction sees (a ```typescript one would be skipped).
    expect(markdown.match(/^```(ts|typescript|tsx)\b/gm)).to.have.length(markdown.match(/^```ts$/gm)!.length);
    expect(modules.join('\n')).to.include('autoPaginate(').and.include("from '@payments-api/sdk/node'");
    const files: Record<string, string> = {
      'package.json': JSON.stringify({ name: 'readme-examples', private: true, type: 'module' }),
      'tsconfig.json': JSON.stringify(CONSUMER_TSCONFIG),
    };
    modules.forEach((text, index) => {
      // `export {}` keeps a module a module even if an example ever loses its imports.
      files[`example-${index + 1}.ts`] = `${text}\nexport {};\n`;
    });
    project = createTypeScriptProject(files, { linkDependencies: true });
    expect(await project.typecheck()).to.equal('');
  });
});
