// `kino dev`: the whole farm on one machine. See launcher.ts.
export { runDevStack } from './run-dev-stack.ts';
export { DevStackLauncher, type DevStackStatus } from './launcher.ts';
export { devStackLayout, layoutPorts, defaultPortBase, portOffsets, type DevStackLayout, type DevStackOptions } from './layout.ts';
export { readDevJson, type DevJson } from './state-files.ts';
