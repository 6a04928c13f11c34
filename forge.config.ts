import type { ForgeConfig } from '@electron-forge/shared-types';
import { AutoUnpackNativesPlugin } from '@electron-forge/plugin-auto-unpack-natives';
import { MakerDeb } from '@electron-forge/maker-deb';
import { MakerZIP } from '@electron-forge/maker-zip';

/**
 * Development packaging with Electron Forge: `npm run package` / `npm run make` build the
 * renderer (Vite) and the main/preload/worker bundles (esbuild) first, then Forge packages them
 * (a zip, a deb) to try the packaged app locally. The installers users get are electron-builder's
 * (`npm run dist`, electron-builder.config.ts; docs/packaging.md says which tool does what).
 * Electron is an optional dependency (so `npm ci` works where its binary cannot be downloaded);
 * Forge looks for it among devDependencies, so the readPackageJson hook shows it there.
 */
const config: ForgeConfig = {
  packagerConfig: {
    name: 'Ambiguity Workbench',
    executableName: 'ambiguity-workbench',
    // Native modules (better-sqlite3, sqlite-vec) must live outside the asar archive to load.
    asar: { unpack: '**/{*.node,*.so,*.dylib,*.dll}' },
    // dist/node holds the CLI's own bundles for plain Node (bin/bundles.mjs): the app has dist/electron.
    ignore: [/^\/(test|test-results|bench-results|renderer|scripts|\.ci|out|dist\/node)(\/|$)/, /\.map$/],
  },
  rebuildConfig: { onlyModules: ['better-sqlite3'] },
  makers: [new MakerZIP({}, ['darwin', 'linux', 'win32']), new MakerDeb({ options: { name: 'ambiguity-workbench' } })],
  plugins: [new AutoUnpackNativesPlugin({})],
  hooks: {
    readPackageJson: async (_config, packageJson: Record<string, Record<string, string> | undefined>) => {
      const electron = packageJson.optionalDependencies?.electron;
      if (electron) packageJson.devDependencies = { ...packageJson.devDependencies, electron };
      return packageJson;
    },
  },
};

export default config;
