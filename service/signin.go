package service

import (
	"context"
	"fmt"

	"github.com/payport/payport"
)

// TokenPair is the result of the sign-in API (spec 2.7).
type TokenPair struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

// SignIn implements POST /v2/signin/api-key: an API key buys a new token
// pair that starts a sign-in family.
func (s *Service) SignIn(ctx context.Context, apiKey string) (TokenPair, error) {
	if apiKey == "" {
		return TokenPair{}, payport.Invalid("api_key", "required")
	}
	m, err := s.store.MerchantByAPIKeyHash(ctx, s.keys.HashSecret("api_key", apiKey))
	if payport.IsNotFound(err) {
		return TokenPair{}, payport.Errorf(payport.KindUnauthorized, "%s", payport.MsgSigninUnauthorized)
	} else if err != nil {
		return TokenPair{}, fmt.Errorf("sign in: %w", err)
	}
	var pair TokenPair
	err = s.store.Update(ctx, func(tx payport.Tx) error {
		pair, err = s.issuePair(ctx, tx, m, randomID())
		return err
	})
	if err != nil {
		return TokenPair{}, fmt.Errorf("sign in: %w", err)
	}
	return pair, nil
}

// Regenerate implements POST /v2/token-regeneration: a refresh token is
// exchanged once for a new pair of the same family. Presenting a used one
// again revokes every token of its family (reuse detection).
func (s *Service) Regenerate(ctx context.Context, refreshToken string) (TokenPair, error) {
	if refreshToken == "" {
		return TokenPair{}, payport.Invalid("refresh_token", "required")
	}
	var pair TokenPair
	var reused bool
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		t, err := tx.TokenByHash(ctx, tokenHash(refreshToken))
		if payport.IsNotFound(err) || (err == nil && t.Kind != payport.TokenRefresh) {
			return payport.Errorf(payport.KindUnauthorized, "%s", payport.MsgRefreshTokenInvalid)
		} else if err != nil {
			return err
		}
		m, err := tx.MerchantByID(ctx, t.MerchantID)
		if err != nil {
			return err
		}
		now := s.now(m)
		if t.RevokedAt != 0 || now >= t.ExpiresAt {
			return payport.Errorf(payport.KindUnauthorized, "%s", payport.MsgRefreshTokenInvalid)
		}
		claimed, err := tx.UseToken(ctx, t.Hash, now)
		if err != nil {
			return err
		}
		if !claimed { // used before: revoke the family, and commit that
			reused = true
			return tx.RevokeTokenFamily(ctx, t.FamilyID, now)
		}
		pair, err = s.issuePair(ctx, tx, m, t.FamilyID)
		return err
	})
	s.auth.invalidate() // a used or revoked token
	if err == nil && reused {
		err = payport.Errorf(payport.KindUnauthorized, "%s", payport.MsgRefreshTokenReused)
	}
	if err != nil {
		return TokenPair{}, fmt.Errorf("regenerate: %w", err)
	}
	return pair, nil
}

func (s *Service) issuePair(ctx context.Context, tx payport.Tx, m payport.Merchant, family string) (TokenPair, error) {
	now := s.now(m)
	pair := TokenPair{AccessToken: randomString(64, alnum), RefreshToken: randomString(64, alnum)}
	tokens := []payport.Token{
		{Hash: tokenHash(pair.AccessToken), Kind: payport.TokenAccess, ExpiresAt: now + payport.TokenLifetime},
		{Hash: tokenHash(pair.RefreshToken), Kind: payport.TokenRefresh, ExpiresAt: now + payport.RefreshTokenLifetime},
	}
	for _, t := range tokens {
		t.ID, t.MerchantID, t.FamilyID, t.IssuedAt = randomID(), m.ID, family, now
		if err := tx.InsertToken(ctx, t); err != nil {
			return TokenPair{}, err
		}
	}
	return pair, nil
}
