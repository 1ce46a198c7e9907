export { createPostgresRecords, createPostgresRecords as default, PostgresRecords } from './postgres-records.js';
export { MIGRATIONS, migrate, type Migration } from './migrations.js';
export { postgresRecordsOptionsSchema, type PostgresRecordsOptions, type PostgresRecordsOptionsInput } from './options.js';
