// Running a node script without root's override of file permissions, for the tests of permission
// errors (a read-only file, an unreadable one), which mean nothing to a process that may read and
// write anything: root, or any process with CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH.
//
// There are several ways, and which one works depends on the machine and on where the checkout
// lives: `nobody` cannot enter a checkout inside a directory only its owner may enter (root's home,
// `mktemp -d`), a container may refuse to change user or to drop capabilities. So each way is
// first checked, once per checkout, by running it: it must reach the scratch directory and the
// script (the script's --help must print its usage), and a file of mode 0000 there must be
// refused to it for reading and for writing. The first way that passes runs the test; when none
// does, the test is to be skipped with every way's reason, never passed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// Opens argv[1] (must work) and argv[2], a file of mode 0000 (must be refused: EACCES).
const OVERRIDE_PROBE = `
const fs = require('node:fs');
const [readable, locked] = process.argv.slice(1);
try {
  fs.readFileSync(readable);
} catch (e) {
  console.error('cannot read ' + readable + ' (' + e.code + ')');
  process.exit(3);
}
for (const flags of ['r', 'r+']) {
  let fd;
  try {
    fd = fs.openSync(locked, flags);
  } catch (e) {
    if (e.code === 'EACCES') continue;
    console.error('opening ' + locked + ' failed with ' + e.code + ', not EACCES');
    process.exit(3);
  }
  fs.closeSync(fd);
  console.error('opened ' + locked + " (mode 0000) with '" + flags + "': the override is still there");
  process.exit(3);
}
`;

const SETPRIV = ['--inh-caps=-all', '--bounding-set=-dac_override,-dac_read_search', '--'];

const spawn = (argv, options) => spawnSync(argv[0], argv.slice(1), options);

/** The ways to run a program, least change first: { name, spawn(argv, options) }. */
function ways(checkout) {
  const list = [
    { name: 'as is', spawn },
    {
      // The same user without the two capabilities that let it past file permissions: root then
      // gets the owner's bits, as any user would, and still enters a checkout it owns.
      name: `under setpriv ${SETPRIV.slice(0, -1).join(' ')}`,
      spawn: (argv, options) => spawnSync('setpriv', [...SETPRIV, ...argv], options),
    },
  ];
  // A checkout in a private directory of its owner (root running the tests in a user's home)
  // is reached by that user only.
  const owner = fs.statSync(checkout);
  if (owner.uid !== 0 && owner.uid !== process.getuid?.())
    list.push({
      name: `as the checkout's owner (uid ${owner.uid})`,
      spawn: (argv, options) => spawn(argv, { ...options, uid: owner.uid, gid: owner.gid }),
    });
  list.push({
    name: 'as nobody (uid 65534)',
    spawn: (argv, options) => spawn(argv, { ...options, uid: 65534, gid: 65534 }),
  });
  return list;
}

/** Why a run failed, in one line, or null when it exited 0. */
function failure(r) {
  if (r.error) return r.error.code ?? r.error.message;
  if (r.status === 0) return null;
  const lines = r.stderr.trim().split('\n');
  return lines.find((l) => /^(\w*Error\b|setpriv: )/.test(l)) ?? lines.at(-1) ?? `exit ${r.status}`;
}

/**
 * A runner of `node script ...args` in `checkout` without the override of file permissions, for
 * files under `dir`: (...args) => { r, way } (spawnSync's result, and how it ran) or { skip } (why
 * no way works here).
 * The ways are checked on the first call; `dir` must by then have the mode the tests give it.
 */
export function withoutPermissionOverride({ checkout, script, dir }) {
  let chosen;
  const choose = () => {
    const probe = fs.mkdtempSync(path.join(dir, 'permission-probe-'));
    try {
      fs.chmodSync(probe, 0o755);
      const readable = path.join(probe, 'readable');
      const locked = path.join(probe, 'locked');
      fs.writeFileSync(readable, 'x');
      fs.writeFileSync(locked, 'x');
      fs.chmodSync(readable, 0o644);
      fs.chmodSync(locked, 0o000);
      const reasons = [];
      for (const way of ways(checkout)) {
        const options = { cwd: checkout, encoding: 'utf8' };
        const override = failure(
          way.spawn([process.execPath, '-e', OVERRIDE_PROBE, readable, locked], options),
        );
        if (override) {
          reasons.push(`${way.name}: ${override}`);
          continue;
        }
        const help = way.spawn([process.execPath, script, '--help'], options);
        const reach =
          failure(help) ?? (help.stdout.startsWith('usage: ') ? null : 'no usage from --help');
        if (reach) {
          reasons.push(`${way.name}: cannot run ${script}: ${reach}`);
          continue;
        }
        return { way };
      }
      return {
        skip: `no way here runs ${script} without the permission override (${reasons.join('; ')})`,
      };
    } finally {
      fs.rmSync(probe, { recursive: true, force: true });
    }
  };
  return (...args) => {
    chosen ??= choose();
    if (chosen.skip) return { skip: chosen.skip };
    const { way } = chosen;
    return {
      r: way.spawn([process.execPath, script, ...args], { cwd: checkout, encoding: 'utf8' }),
      way: way.name,
    };
  };
}

/**
 * A copy of the named files of `root` (relative paths, files or directories) in a directory only
 * its owner may enter (mode 0700, as root's home or `mktemp -d`), with `links` (relative paths:
 * a build's dist/, node_modules) as symbolic links to root's. Returns { checkout, remove }.
 */
export function privateCheckout(root, { files, links = [], tmp }) {
  const parent = fs.mkdtempSync(path.join(tmp, 'hirope-private-'));
  fs.chmodSync(parent, 0o700);
  const checkout = path.join(parent, 'hirope');
  for (const file of files)
    fs.cpSync(path.join(root, file), path.join(checkout, file), { recursive: true });
  for (const link of links) {
    fs.mkdirSync(path.dirname(path.join(checkout, link)), { recursive: true });
    fs.symlinkSync(path.join(root, link), path.join(checkout, link));
  }
  return { checkout, remove: () => fs.rmSync(parent, { recursive: true, force: true }) };
}
