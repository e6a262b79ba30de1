// Google's official Node client for GCS (@google-cloud/storage, code nobody
// here wrote) driving ckptbench's GCS test server through the operations
// the gs backend uses: multipart and resumable uploads (with a chunk cut by
// a reset and resumed), CRC32C-validated downloads (one answered 503 first
// and retried), ranged reads, metadata, paged and delimited listing,
// compose, create-only uploads (ifGenerationMatch=0), delete. Exits
// non-zero on the first mismatch.
//
// Usage: GCS_ENDPOINT=http://127.0.0.1:PORT node client_test.js DIR
// (the endpoint goes in apiEndpoint: this client reads STORAGE_EMULATOR_HOST
// as a base URL that already ends in /storage/v1, unlike other clients)
// DIR holds ckpt.bin (what ckptbench uploaded as ckpt/obj.bin); the script
// writes node-big.bin (what it uploaded as node/big.bin) and
// ckpt-download.bin (ckpt/obj.bin as it downloaded it).
'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const {Storage, CRC32C, IdempotencyStrategy} = require('@google-cloud/storage');

const dir = process.argv[2];
const storage = new Storage({
  projectId: 'test-project',
  apiEndpoint: process.env.GCS_ENDPOINT,
  retryOptions: {
    autoRetry: true,
    maxRetries: 5,
    retryDelayMultiplier: 1.5,
    maxRetryDelay: 1,
    totalTimeout: 60,
    idempotencyStrategy: IdempotencyStrategy.RetryAlways,
  },
});
const bucket = storage.bucket('bucket');

function crc32cOf(buf) {
  const c = new CRC32C();
  c.update(buf);
  return c.toString();
}

function streamToBuffer(stream) {
  return new Promise((resolve, reject) => {
    const parts = [];
    stream.on('data', d => parts.push(d));
    stream.on('error', reject);
    stream.on('end', () => resolve(Buffer.concat(parts)));
  });
}

async function step(name, fn) {
  await fn();
  console.log(`ok ${name}`);
}

async function main() {
  await step('bucket metadata', async () => {
    const [meta] = await bucket.getMetadata();
    assert.equal(meta.name, 'bucket');
  });

  const small = crypto.randomBytes(300 * 1024);
  await step('multipart upload', async () => {
    await bucket.file('node/small.bin').save(small, {
      resumable: false,
      validation: 'crc32c',
    });
    const [meta] = await bucket.file('node/small.bin').getMetadata();
    assert.equal(Number(meta.size), small.length);
    assert.equal(meta.crc32c, crc32cOf(small));
    assert.equal(meta.md5Hash,
                 crypto.createHash('md5').update(small).digest('base64'));
  });

  const big = crypto.randomBytes(3 * 1024 * 1024 + 5);
  fs.writeFileSync(path.join(dir, 'node-big.bin'), big);
  await step('resumable upload in 1 MiB chunks, one cut by a reset', async () => {
    await bucket.file('node/big.bin').save(big, {
      resumable: true,
      chunkSize: 1024 * 1024,
      validation: 'crc32c',
    });
    const [meta] = await bucket.file('node/big.bin').getMetadata();
    assert.equal(Number(meta.size), big.length);
    assert.equal(meta.crc32c, crc32cOf(big));
  });

  await step('validated download (first answer 503, retried)', async () => {
    const [data] = await bucket.file('node/big.bin').download({
      validation: 'crc32c',
    });
    assert.ok(data.equals(big));
  });

  await step('ranged read', async () => {
    const start = 1000000, end = 2500000;
    const data = await streamToBuffer(bucket.file('node/big.bin')
        .createReadStream({start, end, validation: false}));
    assert.ok(data.equals(big.subarray(start, end + 1)));
  });

  await step('download of what ckptbench uploaded', async () => {
    const [data] = await bucket.file('ckpt/obj.bin').download({
      validation: 'crc32c',
    });
    fs.writeFileSync(path.join(dir, 'ckpt-download.bin'), data);
    const want = fs.readFileSync(path.join(dir, 'ckpt.bin'));
    assert.ok(data.equals(want));
  });

  await step('listing with a delimiter, one item per page', async () => {
    const names = [];
    let prefixes = [];
    let query = {prefix: '', delimiter: '/', maxResults: 1, autoPaginate: false};
    while (query) {
      const [files, next, resp] = await bucket.getFiles(query);
      names.push(...files.map(f => f.name));
      prefixes = prefixes.concat(resp.prefixes || []);
      query = next;
    }
    assert.deepEqual(names, []);
    assert.deepEqual(prefixes.sort(), ['ckpt/', 'node/']);
    const [under] = await bucket.getFiles({prefix: 'node/'});
    assert.deepEqual(under.map(f => f.name).sort(),
                     ['node/big.bin', 'node/small.bin']);
  });

  await step('compose', async () => {
    await bucket.combine(['node/small.bin', 'node/big.bin'],
                         'node/combined.bin');
    const [data] = await bucket.file('node/combined.bin').download({
      validation: 'crc32c',
    });
    assert.ok(data.equals(Buffer.concat([small, big])));
    const [meta] = await bucket.file('node/combined.bin').getMetadata();
    assert.equal(meta.componentCount, 2);
  });

  // The step claim: a create that only succeeds if no object exists.
  await step('create-only upload (ifGenerationMatch=0)', async () => {
    const claim = bucket.file('node/step-1/.ckptbench-claim');
    await claim.save('run-a', {resumable: false,
                               preconditionOpts: {ifGenerationMatch: 0}});
    await assert.rejects(
        claim.save('run-b', {resumable: false,
                             preconditionOpts: {ifGenerationMatch: 0}}),
        err => err.code === 412);
    const [held] = await claim.download();
    assert.equal(held.toString(), 'run-a');
  });

  await step('delete', async () => {
    await bucket.file('node/combined.bin').delete();
    const [exists] = await bucket.file('node/combined.bin').exists();
    assert.equal(exists, false);
    await assert.rejects(bucket.file('node/combined.bin').delete(),
                         err => err.code === 404);
  });
}

main().then(() => console.log('all ok'), err => {
  console.error(err);
  process.exit(1);
});
