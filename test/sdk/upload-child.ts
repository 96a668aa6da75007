// A separate process that uploads one file with @kino/sdk/node, resumable through a file store, in
// 5 MiB parts two at a time; prints the result as JSON. resume-upload.test.ts kills it mid-way and
// runs it again. Arguments: apiUrl apiKey orgId envId file storeDir.
import { fileResumeStore, Kino } from '@kino/sdk/node';

const [apiUrl, apiKey, orgId, envId, file, storeDir] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
];
const MiB = 1024 * 1024;
const kino = new Kino({ apiUrl, apiKey });
const uploaded = await kino.uploads.upload(orgId, envId, file, {
  multipartThreshold: 5 * MiB,
  partSize: 5 * MiB,
  partsInFlight: 2,
  resumeStore: fileResumeStore(storeDir),
});
process.stdout.write(`${JSON.stringify(uploaded)}\n`);
