package sqlite

import (
	"context"
	"database/sql"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// merchantWhere reads the merchant that where, with its one argument,
// selects.
func (q queries) merchantWhere(ctx context.Context, op, where string, arg any) (payport.Merchant, error) {
	var m payport.Merchant
	err := q.q.QueryRowContext(ctx, `SELECT `+rowmap.MerchantColumns+` FROM merchants WHERE `+where, arg).
		Scan(rowmap.MerchantFields(&m)...)
	return m, mapErr(op, err)
}

// MerchantByID implements payport.Reader.
func (q queries) MerchantByID(ctx context.Context, id int64) (payport.Merchant, error) {
	return q.merchantWhere(ctx, "merchant by id", "id = ?", id)
}

// MerchantByIMPKey implements payport.Reader.
func (q queries) MerchantByIMPKey(ctx context.Context, impKey string) (payport.Merchant, error) {
	return q.merchantWhere(ctx, "merchant by imp_key", "imp_key = ?", impKey)
}

// MerchantByAPIKeyHash implements payport.Reader.
func (q queries) MerchantByAPIKeyHash(ctx context.Context, hash []byte) (payport.Merchant, error) {
	return q.merchantWhere(ctx, "merchant by api key",
		"id = (SELECT merchant_id FROM api_keys WHERE key_hash = ? AND revoked_at = 0)", hash)
}

// Merchants implements payport.Reader.
func (q queries) Merchants(ctx context.Context) ([]payport.Merchant, error) {
	rows, err := q.q.QueryContext(ctx, `SELECT `+rowmap.MerchantColumns+` FROM merchants ORDER BY id`)
	if err != nil {
		return nil, mapErr("merchants", err)
	}
	return collect(rows, "merchants", rowmap.MerchantFields)
}

// PGSettings implements payport.Reader.
func (q queries) PGSettings(ctx context.Context, merchantID int64) ([]payport.PGSetting, error) {
	rows, err := q.q.QueryContext(ctx, `SELECT `+rowmap.PGSettingColumns+`
		FROM pg_settings WHERE merchant_id = ? ORDER BY id`, merchantID)
	if err != nil {
		return nil, mapErr("pg settings", err)
	}
	return collect(rows, "pg settings", rowmap.PGSettingFields)
}

// LockMerchant implements payport.Tx. On SQLite the transaction already
// holds the database's only write lock, so reading is enough.
func (t *tx) LockMerchant(ctx context.Context, id int64) (payport.Merchant, error) {
	return t.MerchantByID(ctx, id)
}

// CreateMerchant implements payport.Tx.
func (t *tx) CreateMerchant(ctx context.Context, m *payport.Merchant) error {
	err := t.q.QueryRowContext(ctx, `INSERT INTO merchants (name, imp_key, imp_secret_hash, notification_url,
		webhook_content_type, webhook_max_attempts, schedule_list_paged, webhook_secret_id, clock_offset, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		m.Name, m.IMPKey, m.IMPSecretHash, m.NotificationURL, m.WebhookContentType, m.WebhookMaxAttempts,
		m.ScheduleListPaged, m.WebhookSecretID, m.ClockOffset, m.CreatedAt).Scan(&m.ID)
	return mapErr("create merchant", err)
}

// UpdateMerchant implements payport.Tx.
func (t *tx) UpdateMerchant(ctx context.Context, m payport.Merchant) error {
	res, err := t.q.ExecContext(ctx, `UPDATE merchants SET name = ?, imp_secret_hash = ?, notification_url = ?,
		webhook_content_type = ?, webhook_max_attempts = ?, schedule_list_paged = ?, webhook_secret_id = ?,
		clock_offset = ? WHERE id = ?`,
		m.Name, m.IMPSecretHash, m.NotificationURL, m.WebhookContentType, m.WebhookMaxAttempts,
		m.ScheduleListPaged, m.WebhookSecretID, m.ClockOffset, m.ID)
	return affected("update merchant", res, err)
}

// AddAPIKey implements payport.Tx.
func (t *tx) AddAPIKey(ctx context.Context, k payport.APIKey) error {
	_, err := t.q.ExecContext(ctx, `INSERT INTO api_keys (key_hash, merchant_id, created_at) VALUES (?, ?, ?)`,
		k.Hash, k.MerchantID, k.CreatedAt)
	return mapErr("add api key", err)
}

// AddPGSetting implements payport.Tx.
func (t *tx) AddPGSetting(ctx context.Context, s *payport.PGSetting) error {
	err := t.q.QueryRowContext(ctx, `INSERT INTO pg_settings (merchant_id, pg_provider, pg_id, nonauth, vbank,
		api_key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		s.MerchantID, s.Provider, s.PGID, s.NonAuth, s.VBank, s.APIKeyHash, s.CreatedAt).Scan(&s.ID)
	return mapErr("add pg setting", err)
}

// RemovePGSetting implements payport.Tx.
func (t *tx) RemovePGSetting(ctx context.Context, merchantID int64, provider, pgID string) error {
	res, err := t.q.ExecContext(ctx, `DELETE FROM pg_settings WHERE merchant_id = ? AND pg_provider = ? AND pg_id = ?`,
		merchantID, provider, pgID)
	return affected("remove pg setting", res, err)
}

// collect scans every row into the pointers fields returns for a new T
// (one of the rowmap Fields functions) and closes rows; no rows is an
// empty, non-nil slice.
func collect[T any](rows *sql.Rows, op string, fields func(*T) []any) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var v T
		if err := rows.Scan(fields(&v)...); err != nil {
			return nil, mapErr(op, err)
		}
		out = append(out, v)
	}
	return out, mapErr(op, rows.Err())
}
