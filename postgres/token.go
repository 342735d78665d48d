package postgres

import (
	"context"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// TokenByHash implements payport.Reader.
func (q queries) TokenByHash(ctx context.Context, hash []byte) (payport.Token, error) {
	var t payport.Token
	err := q.q.QueryRow(ctx, `SELECT `+rowmap.TokenColumns+` FROM api_tokens WHERE token_hash = $1`, hash).
		Scan(rowmap.TokenFields(&t)...)
	if err != nil {
		return payport.Token{}, mapErr("token by hash", err)
	}
	return t, nil
}

// CurrentRESTToken implements payport.Reader. Tokens issued in the same
// second are told apart by seq, their insertion order.
func (q queries) CurrentRESTToken(ctx context.Context, merchantID int64) (payport.Token, error) {
	var t payport.Token
	err := q.q.QueryRow(ctx, `SELECT `+rowmap.TokenColumns+` FROM api_tokens
		WHERE merchant_id = $1 AND kind = 'rest' ORDER BY issued_at DESC, seq DESC LIMIT 1`, merchantID).
		Scan(rowmap.TokenFields(&t)...)
	if err != nil {
		return payport.Token{}, mapErr("current rest token", err)
	}
	return t, nil
}

// InsertToken implements payport.Tx. A taken hash inserts nothing and is
// ErrConflict, leaving the transaction usable.
func (t *tx) InsertToken(ctx context.Context, tok payport.Token) error {
	tag, err := t.q.Exec(ctx, `INSERT INTO api_tokens (`+rowmap.TokenColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT DO NOTHING`,
		tok.Hash, tok.ID, tok.MerchantID, string(tok.Kind), tok.FamilyID, tok.IssuedAt, tok.ExpiresAt, tok.UsedAt, tok.RevokedAt)
	if err != nil {
		return mapErr("insert token", err)
	}
	if tag.RowsAffected() == 0 {
		return conflict("insert token")
	}
	return nil
}

// DeleteRESTTokens implements payport.Tx.
func (t *tx) DeleteRESTTokens(ctx context.Context, merchantID int64) error {
	_, err := t.q.Exec(ctx, `DELETE FROM api_tokens WHERE merchant_id = $1 AND kind = 'rest'`, merchantID)
	return mapErr("delete rest tokens", err)
}

// ExtendToken implements payport.Tx.
func (t *tx) ExtendToken(ctx context.Context, hash []byte, expiresAt int64) error {
	tag, err := t.q.Exec(ctx, `UPDATE api_tokens SET expires_at = $1 WHERE token_hash = $2`, expiresAt, hash)
	return affected("extend token", tag, err)
}

// UseToken implements payport.Tx: the row count of the conditional update
// is the claim. A concurrent exchange of the same token waits for the row
// lock and then finds used_at set (READ COMMITTED re-evaluates the WHERE
// on the committed row), so it changes nothing.
func (t *tx) UseToken(ctx context.Context, hash []byte, at int64) (bool, error) {
	tag, err := t.q.Exec(ctx, `UPDATE api_tokens SET used_at = $1
		WHERE token_hash = $2 AND used_at = 0 AND revoked_at = 0`, at, hash)
	if err != nil {
		return false, mapErr("use token", err)
	}
	return tag.RowsAffected() == 1, nil
}

// RevokeTokenFamily implements payport.Tx.
func (t *tx) RevokeTokenFamily(ctx context.Context, familyID string, at int64) error {
	_, err := t.q.Exec(ctx, `UPDATE api_tokens SET revoked_at = $1
		WHERE family_id = $2 AND family_id <> '' AND revoked_at = 0`, at, familyID)
	return mapErr("revoke token family", err)
}
