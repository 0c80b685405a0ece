// The contracts' YAML read strictly, before Spectral and Redocly read the values it gives
// (`npm run lint:spec`). YAML accepts what is almost always a typo in a spec: `{ description: it
// may, see below }` is a flow mapping with a second key `see below` and no value, which silently
// cuts the description short; a key given twice keeps the last. eslint-plugin-yml refuses both
// (a duplicate key is a parse error), wherever they are, examples included.
import yml from 'eslint-plugin-yml';

export default [
  ...yml.configs['flat/base'],
  {
    files: ['**/*.yaml'],
    rules: {
      'yml/no-empty-mapping-value': 'error',
      'yml/no-empty-sequence-entry': 'error',
      'yml/no-empty-key': 'error',
      'yml/require-string-key': 'error',
      'yml/no-empty-document': 'error',
      'yml/no-irregular-whitespace': 'error',
      'yml/no-tab-indent': 'error',
    },
  },
];
