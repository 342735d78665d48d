package postgres

import (
	"context"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// merchantWhere reads the merchant that where, with args, selects.
func (q queries) merchantWhere(ctx context.Context, op, where string, args ...any) (payport.Merchant, error) {
	var m payport.Merchant
	err := q.q.QueryRow(ctx, `SELECT `+rowmap.MerchantColumns+` FROM merchants WHERE `+where, args...).
		Scan(rowmap.MerchantFields(&m)...)
	if err != nil {
		return payport.Merchant{}, mapErr(op, err)
	}
	return m, nil
}

// MerchantByID implements payport.Reader.
func (q queries) MerchantByID(ctx context.Context, id int64) (payport.Merchant, error) {
	return q.merchantWhere(ctx, "merchant by id", "id = $1", id)
}

// MerchantByIMPKey implements payport.Reader.
func (q queries) MerchantByIMPKey(ctx context.Context, impKey string) (payport.Merchant, error) {
	return q.merchantWhere(ctx, "merchant by imp_key", "imp_key = $1", impKey)
}

// MerchantByAPIKeyHash implements payport.Reader.
func (q queries) MerchantByAPIKeyHash(ctx context.Context, hash []byte) (payport.Merchant, error) {
	return q.merchantWhere(ctx, "merchant by api key",
		"id = (SELECT merchant_id FROM api_keys WHERE key_hash = $1 AND revoked_at = 0)", hash)
}

// Merchants implements payport.Reader.
func (q queries) Merchants(ctx context.Context) ([]payport.Merchant, error) {
	rows, err := q.q.Query(ctx, `SELECT `+rowmap.MerchantColumns+` FROM merchants ORDER BY id`)
	if err != nil {
		return nil, mapErr("merchants", err)
	}
	return collect(rows, "merchants", rowmap.MerchantFields)
}

// PGSettings implements payport.Reader.
func (q queries) PGSettings(ctx context.Context, merchantID int64) ([]payport.PGSetting, error) {
	rows, err := q.q.Query(ctx, `SELECT `+rowmap.PGSettingColumns+`
		FROM merchant_pg_settings WHERE merchant_id = $1 ORDER BY id`, merchantID)
	if err != nil {
		return nil, mapErr("pg settings", err)
	}
	return collect(rows, "pg settings", rowmap.PGSettingFields)
}

// LockMerchant implements payport.Tx with SELECT … FOR NO KEY UPDATE: the
// row lock is held until the transaction ends, so a second LockMerchant of
// the same merchant (on any node) waits for it, as does UpdateMerchant. It
// is the weakest lock that excludes those and, unlike FOR UPDATE, it does
// not conflict with the KEY SHARE locks that foreign-key checks take, so
// inserting the merchant's payments, tokens and events is not held up.
func (t *tx) LockMerchant(ctx context.Context, id int64) (payport.Merchant, error) {
	return t.merchantWhere(ctx, "lock merchant", "id = $1 FOR NO KEY UPDATE", id)
}

// CreateMerchant implements payport.Tx. A taken imp_key inserts nothing
// (ON CONFLICT DO NOTHING) and is ErrConflict, leaving the transaction
// usable.
func (t *tx) CreateMerchant(ctx context.Context, m *payport.Merchant) error {
	err := t.q.QueryRow(ctx, `INSERT INTO merchants (name, imp_key, imp_secret_hash, notification_url,
		webhook_content_type, webhook_max_attempts, schedule_list_paged, webhook_secret_id, clock_offset, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id`,
		m.Name, m.IMPKey, m.IMPSecretHash, m.NotificationURL, m.WebhookContentType, m.WebhookMaxAttempts,
		m.ScheduleListPaged, m.WebhookSecretID, m.ClockOffset, m.CreatedAt).Scan(&m.ID)
	return insertedOrConflict("create merchant", err)
}

// UpdateMerchant implements payport.Tx.
func (t *tx) UpdateMerchant(ctx context.Context, m payport.Merchant) error {
	tag, err := t.q.Exec(ctx, `UPDATE merchants SET name = $1, imp_secret_hash = $2, notification_url = $3,
		webhook_content_type = $4, webhook_max_attempts = $5, schedule_list_paged = $6, webhook_secret_id = $7,
		clock_offset = $8 WHERE id = $9`,
		m.Name, m.IMPSecretHash, m.NotificationURL, m.WebhookContentType, m.WebhookMaxAttempts,
		m.ScheduleListPaged, m.WebhookSecretID, m.ClockOffset, m.ID)
	return affected("update merchant", tag, err)
}

// AddAPIKey implements payport.Tx.
func (t *tx) AddAPIKey(ctx context.Context, k payport.APIKey) error {
	tag, err := t.q.Exec(ctx, `INSERT INTO api_keys (key_hash, merchant_id, created_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, k.Hash, k.MerchantID, k.CreatedAt)
	if err != nil {
		return mapErr("add api key", err)
	}
	if tag.RowsAffected() == 0 {
		return conflict("add api key")
	}
	return nil
}

// AddPGSetting implements payport.Tx.
func (t *tx) AddPGSetting(ctx context.Context, s *payport.PGSetting) error {
	err := t.q.QueryRow(ctx, `INSERT INTO merchant_pg_settings (merchant_id, pg_provider, pg_id, nonauth, vbank,
		api_key_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING id`,
		s.MerchantID, s.Provider, s.PGID, s.NonAuth, s.VBank, s.APIKeyHash, s.CreatedAt).Scan(&s.ID)
	return insertedOrConflict("add pg setting", err)
}

// RemovePGSetting implements payport.Tx.
func (t *tx) RemovePGSetting(ctx context.Context, merchantID int64, provider, pgID string) error {
	tag, err := t.q.Exec(ctx, `DELETE FROM merchant_pg_settings WHERE merchant_id = $1 AND pg_provider = $2 AND pg_id = $3`,
		merchantID, provider, pgID)
	return affected("remove pg setting", tag, err)
}
