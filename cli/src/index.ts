export { KinoCommand } from './base-command.ts';
