package sqlite

import "context"

// ForceSchemaVersionForTest records a migration version as applied, as a
// newer payport would have.
func (db *DB) ForceSchemaVersionForTest(ctx context.Context, v int64) error {
	_, err := db.writer.ExecContext(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, v)
	return err
}
