package service

import (
	"context"
	"crypto/hmac"
	"fmt"

	"github.com/payport/payport"
)

// AccessToken is the result of getToken (spec 2.2).
type AccessToken struct {
	AccessToken string `json:"access_token"`
	Now         int64  `json:"now"`
	ExpiredAt   int64  `json:"expired_at"`
}

// GetToken implements POST /users/getToken (spec 5, decisions §2.3): one
// current token per key pair; before expiry the same token and expiry come
// back, extended by 300 s when asked in the last 60 s; after expiry a new
// token replaces the old one.
func (s *Service) GetToken(ctx context.Context, impKey, impSecret string) (AccessToken, error) {
	if impKey == "" || impSecret == "" {
		return AccessToken{}, payport.Errorf(payport.KindInvalid, "%s", payport.MsgTokenParamsMissing)
	}
	secretHash := s.keys.HashSecret("imp_secret", impSecret)
	// Fast path: a current token outside its last minute needs no write.
	// The cached pair may be up to a second old, which is safe here: a
	// token changes (extended or replaced) only in its last minute or after
	// expiry, and then this path is not taken.
	if e, ok := s.auth.get(cacheKey("imp_key", impKey)); ok && hmac.Equal(e.merchant.IMPSecretHash, secretHash) {
		if now := s.now(e.merchant); e.token.Valid(now) && e.token.ExpiresAt-now > payport.TokenExtendWindow {
			return s.accessToken(e.token, now), nil
		}
	}
	gen := s.auth.gen.Load()
	m, err := s.store.MerchantByIMPKey(ctx, impKey)
	if payport.IsNotFound(err) || (err == nil && !hmac.Equal(m.IMPSecretHash, secretHash)) {
		return AccessToken{}, payport.Errorf(payport.KindUnauthorized, "%s", payport.MsgTokenAuthFailed)
	} else if err != nil {
		return AccessToken{}, fmt.Errorf("get token: %w", err)
	}
	now := s.now(m)
	if t, err := s.store.CurrentRESTToken(ctx, m.ID); err == nil && t.Valid(now) && t.ExpiresAt-now > payport.TokenExtendWindow {
		s.auth.put(cacheKey("imp_key", impKey), gen, t, m)
		return s.accessToken(t, now), nil
	} else if err != nil && !payport.IsNotFound(err) {
		return AccessToken{}, fmt.Errorf("get token: %w", err)
	}
	var out AccessToken
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		m, err := tx.LockMerchant(ctx, m.ID) // serialises issuance per key pair
		if err != nil {
			return err
		}
		now := s.now(m)
		t, err := tx.CurrentRESTToken(ctx, m.ID)
		if err != nil && !payport.IsNotFound(err) {
			return err
		}
		switch {
		case err == nil && t.Valid(now) && t.ExpiresAt-now > payport.TokenExtendWindow:
		case err == nil && t.Valid(now):
			t.ExpiresAt += payport.TokenExtension
			if err := tx.ExtendToken(ctx, t.Hash, t.ExpiresAt); err != nil {
				return err
			}
		default:
			if t, err = s.issueRESTToken(ctx, tx, m.ID, now); err != nil {
				return err
			}
		}
		out = s.accessToken(t, now)
		return nil
	})
	s.auth.invalidate() // an extended expiry or a replaced token
	if err != nil {
		return AccessToken{}, fmt.Errorf("get token: %w", err)
	}
	return out, nil
}

func (s *Service) issueRESTToken(ctx context.Context, tx payport.Tx, merchantID, now int64) (payport.Token, error) {
	if err := tx.DeleteRESTTokens(ctx, merchantID); err != nil {
		return payport.Token{}, err
	}
	id := randomID()
	t := payport.Token{
		Hash:       tokenHash(s.keys.RESTToken(id)),
		ID:         id,
		MerchantID: merchantID,
		Kind:       payport.TokenREST,
		IssuedAt:   now,
		ExpiresAt:  now + payport.TokenLifetime,
	}
	return t, tx.InsertToken(ctx, t)
}

func (s *Service) accessToken(t payport.Token, now int64) AccessToken {
	return AccessToken{AccessToken: s.keys.RESTToken(t.ID), Now: now, ExpiredAt: t.ExpiresAt}
}

// Authenticate resolves a bearer token (a REST token or a sign-in access
// token) to its merchant. Unknown, expired and revoked tokens are
// KindUnauthorized.
func (s *Service) Authenticate(ctx context.Context, token string) (payport.Merchant, error) {
	unauthorized := payport.Errorf(payport.KindUnauthorized, "%s", payport.MsgUnauthorized)
	if token == "" {
		return payport.Merchant{}, unauthorized
	}
	hash := tokenHash(token)
	key := cacheKey("token", string(hash))
	e, ok := s.auth.get(key)
	if !ok {
		gen := s.auth.gen.Load() // read before the lookups, so a change during them is not cached
		t, err := s.store.TokenByHash(ctx, hash)
		if payport.IsNotFound(err) {
			return payport.Merchant{}, unauthorized
		} else if err != nil {
			return payport.Merchant{}, fmt.Errorf("authenticate: %w", err)
		}
		if t.Kind != payport.TokenREST && t.Kind != payport.TokenAccess {
			return payport.Merchant{}, unauthorized
		}
		m, err := s.merchantByID(ctx, t.MerchantID)
		if err != nil {
			return payport.Merchant{}, err
		}
		e = authEntry{token: t, merchant: m}
		s.auth.put(key, gen, t, m)
	}
	if !e.token.Valid(s.now(e.merchant)) {
		return payport.Merchant{}, unauthorized
	}
	return e.merchant, nil
}
