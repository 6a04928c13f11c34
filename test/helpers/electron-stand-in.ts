import fs from 'node:fs';
import path from 'node:path';
import { electronFiles } from '../../scripts/packaging-checks';

/**
 * A stand-in for an unpacked Electron release (electron-vX-PLATFORM-ARCH.zip), as electron-builder's
 * `electronDist` takes it: every file the app needs, with placeholder contents and a shell script
 * for the executable. The real one cannot be downloaded on the test machine; the packaged app
 * is then checked for what it carries, not run.
 */

const PLIST = (name: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n` +
  `<plist version="1.0"><dict><key>CFBundleExecutable</key><string>${name}</string><key>CFBundleIdentifier</key><string>com.github.Electron</string>` +
  `<key>CFBundleName</key><string>${name}</string></dict></plist>\n`;

export function makeElectronStandIn(dir: string, version: string, platform: NodeJS.Platform = process.platform, leaveOut: string[] = []): string {
  for (const file of electronFiles(platform)) {
    if (leaveOut.includes(file)) continue;
    const full = path.join(dir, file);
    if (file.endsWith('/')) {
      fs.mkdirSync(full, { recursive: true });
      continue;
    }
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, file.endsWith('.plist') ? PLIST('Electron') : '#!/bin/sh\necho "stand-in for Electron"\n', { mode: 0o755 });
  }
  if (platform === 'darwin' && !leaveOut.length) {
    const helper = path.join(dir, 'Electron.app/Contents/Frameworks/Electron Helper.app/Contents');
    fs.mkdirSync(path.join(helper, 'MacOS'), { recursive: true });
    fs.writeFileSync(path.join(helper, 'Info.plist'), PLIST('Electron Helper'));
    fs.writeFileSync(path.join(helper, 'MacOS', 'Electron Helper'), '#!/bin/sh\n', { mode: 0o755 });
  }
  if (platform !== 'darwin' && !leaveOut.includes('locales/')) fs.writeFileSync(path.join(dir, 'locales', 'en-US.pak'), 'stand-in');
  fs.writeFileSync(path.join(dir, 'version'), version);
  return dir;
}
