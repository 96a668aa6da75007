// `kino dev`: the whole farm on one machine; tests and benchmarks start it the same way. See launcher.ts.
export { runDevStack } from './run-dev-stack.ts';
export { DevStackLauncher, type DevStackStatus, type LauncherIo, type StartedNode } from './launcher.ts';
export {
  devStackLayout,
  layoutPorts,
  defaultPortBase,
  freeDevPortBase,
  portOffsets,
  type DevStackLayout,
  type DevStackOptions,
  type KinoPart,
  type StackHost,
} from './layout.ts';
export { readDevJson, type DevJson } from './state-files.ts';
export { devUser, outsiderUser, devDashboardClientId } from './dev-identity.ts';
