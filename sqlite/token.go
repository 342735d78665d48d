package sqlite

import (
	"context"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// TokenByHash implements payport.Reader.
func (q queries) TokenByHash(ctx context.Context, hash []byte) (payport.Token, error) {
	var t payport.Token
	err := q.q.QueryRowContext(ctx, `SELECT `+rowmap.TokenColumns+` FROM api_tokens WHERE token_hash = ?`, hash).
		Scan(rowmap.TokenFields(&t)...)
	return t, mapErr("token by hash", err)
}

// CurrentRESTToken implements payport.Reader.
func (q queries) CurrentRESTToken(ctx context.Context, merchantID int64) (payport.Token, error) {
	var t payport.Token
	err := q.q.QueryRowContext(ctx, `SELECT `+rowmap.TokenColumns+` FROM api_tokens
		WHERE merchant_id = ? AND kind = 'rest' ORDER BY issued_at DESC, rowid DESC LIMIT 1`, merchantID).
		Scan(rowmap.TokenFields(&t)...)
	return t, mapErr("current rest token", err)
}

// InsertToken implements payport.Tx.
func (t *tx) InsertToken(ctx context.Context, tok payport.Token) error {
	_, err := t.q.ExecContext(ctx, `INSERT INTO api_tokens (`+rowmap.TokenColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		tok.Hash, tok.ID, tok.MerchantID, tok.Kind, tok.FamilyID, tok.IssuedAt, tok.ExpiresAt, tok.UsedAt, tok.RevokedAt)
	return mapErr("insert token", err)
}

// DeleteRESTTokens implements payport.Tx.
func (t *tx) DeleteRESTTokens(ctx context.Context, merchantID int64) error {
	_, err := t.q.ExecContext(ctx, `DELETE FROM api_tokens WHERE merchant_id = ? AND kind = 'rest'`, merchantID)
	return mapErr("delete rest tokens", err)
}

// ExtendToken implements payport.Tx.
func (t *tx) ExtendToken(ctx context.Context, hash []byte, expiresAt int64) error {
	res, err := t.q.ExecContext(ctx, `UPDATE api_tokens SET expires_at = ? WHERE token_hash = ?`, expiresAt, hash)
	return affected("extend token", res, err)
}

// UseToken implements payport.Tx: the row count of the conditional update is the claim.
func (t *tx) UseToken(ctx context.Context, hash []byte, at int64) (bool, error) {
	res, err := t.q.ExecContext(ctx, `UPDATE api_tokens SET used_at = ? WHERE token_hash = ? AND used_at = 0 AND revoked_at = 0`, at, hash)
	if err != nil {
		return false, mapErr("use token", err)
	}
	n, err := res.RowsAffected()
	return n == 1, mapErr("use token", err)
}

// RevokeTokenFamily implements payport.Tx.
func (t *tx) RevokeTokenFamily(ctx context.Context, familyID string, at int64) error {
	_, err := t.q.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = ? WHERE family_id = ? AND family_id <> '' AND revoked_at = 0`, at, familyID)
	return mapErr("revoke token family", err)
}
