#!/usr/bin/env node
// Validate one .glb/.gltf file with the Khronos glTF validator (npm gltf-validator, which has no command line):
// prints the validator's JSON report on stdout; exits 0 when it ran (whatever the report says), 2 when it could
// not (bad arguments, unreadable file, format not detected). External resources (a .gltf's buffers and images)
// are read from beside the file. Usage: node validate.js FILE
'use strict';
const fs = require('fs');
const path = require('path');

let validator;
try {
  validator = require('gltf-validator');
} catch (err) {
  console.error('validate.js: gltf-validator is not installed: run scripts/bootstrap.sh --dev ' +
    '(npm ci in tests/export/gltf_validator)');
  process.exit(2);
}

const file = process.argv[2];
if (!file || process.argv.length > 3) {
  console.error('usage: node validate.js FILE.glb');
  process.exit(2);
}

let bytes;
try {
  bytes = new Uint8Array(fs.readFileSync(file));
} catch (err) {
  console.error(`validate.js: cannot read ${file}: ${err.message}`);
  process.exit(2);
}

validator.validateBytes(bytes, {
  uri: path.basename(file),
  maxIssues: 0, // report every issue
  writeTimestamp: false,
  externalResourceFunction: (uri) => fs.promises.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)))
    .then((data) => new Uint8Array(data)),
}).then(
  (report) => process.stdout.write(JSON.stringify(report, null, 2) + '\n'),
  (error) => {
    console.error(`validate.js: the validator could not run on ${file}: ${error}`);
    process.exit(2);
  },
);
