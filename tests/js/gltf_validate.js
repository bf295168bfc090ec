// Runs the Khronos glTF validator (npm's gltf-validator, not a Debian package) on each .glb
// given and prints its counts and messages; exits 1 when any file has an error, 0 otherwise.
// usage: node gltf_validate.js VALIDATOR_DIR FILE.glb...
//   VALIDATOR_DIR: the installed package (the folder holding its package.json).
'use strict';
const fs = require('fs');
const path = require('path');

const [dir, ...files] = process.argv.slice(2);
if (!dir || files.length === 0) {
  console.error('usage: node gltf_validate.js VALIDATOR_DIR FILE.glb...');
  process.exit(2);
}
const validator = require(path.resolve(dir));

async function main() {
  let failed = 0;
  for (const f of files) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(f)),
                                                 { uri: path.basename(f), maxIssues: 50 });
    const i = report.issues;
    console.log(`${f}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ` +
                `${i.numHints} hints (gltf-validator ${report.validatorVersion})`);
    for (const m of i.messages)
      if (m.severity <= 1) // 0 error, 1 warning
        console.log(`  ${m.severity === 0 ? 'ERROR' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
    failed += i.numErrors > 0;
  }
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(1); });
