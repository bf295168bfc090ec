// Reads a BVH file with three.js's BVHLoader (Debian's libjs-three) and prints every joint's
// world position per frame as CSV (frame,joint_index,joint_name,x,y,z; End Sites left out,
// joints numbered in file order), the way three.js places them: the loader's clip played
// by an AnimationMixer on the loader's skeleton. tests/cli/test_cli_readers.c compares it
// with `mblend positions`.
//
// usage: node three_bvh_positions.js FILE.bvh [THREE_DIR]
//   THREE_DIR: where three.js and examples/js/loaders/BVHLoader.js are
//   (default /usr/share/javascript/three).
'use strict';
const fs = require('fs');
const path = require('path');

const file = process.argv[2];
const threeDir = process.argv[3] || '/usr/share/javascript/three';
if (!file) {
  console.error('usage: node three_bvh_positions.js FILE.bvh [THREE_DIR]');
  process.exit(2);
}
const THREE = require(path.join(threeDir, 'three.js'));
// BVHLoader.js is a UMD module that requires './three' beside it; hand it this THREE.
const loaderSrc = fs.readFileSync(path.join(threeDir, 'examples/js/loaders/BVHLoader.js'), 'utf8');
const loaderExports = {};
new Function('exports', 'module', 'require', loaderSrc)(
  loaderExports, { exports: loaderExports }, () => THREE);
if (typeof loaderExports.BVHLoader !== 'function') {
  console.error('BVHLoader.js defined no BVHLoader');
  process.exit(1);
}

// three.js reports malformed input through console.error and goes on: make that fatal.
const consoleError = console.error;
console.error = (...args) => {
  consoleError(...args);
  process.exit(1);
};
const result = new loaderExports.BVHLoader().parse(fs.readFileSync(file, 'utf8'));
console.error = consoleError;

const bones = result.skeleton.bones;
const holder = new THREE.Object3D(); // what '.bones[name]' tracks bind to
holder.skeleton = result.skeleton;
holder.add(bones[0]);
const mixer = new THREE.AnimationMixer(holder);
const action = mixer.clipAction(result.clip);
action.setLoop(THREE.LoopOnce, 1);
action.clampWhenFinished = true;
action.play();

const times = result.clip.tracks.length ? result.clip.tracks[0].times : [0];
const out = ['frame,joint_index,joint_name,x,y,z'];
const p = new THREE.Vector3();
for (let f = 0; f < times.length; ++f) {
  mixer.setTime(times[f]);
  holder.updateMatrixWorld(true);
  let j = 0;
  for (const b of bones) {
    if (b.name === 'ENDSITE')
      continue;
    b.getWorldPosition(p);
    out.push(`${f},${j},${b.name},${p.x},${p.y},${p.z}`);
    ++j;
  }
}
process.stdout.write(out.join('\n') + '\n');
