#!/usr/bin/env node
// The `payments` command: the CLI's TypeScript source, run through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
