package service

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/payport/payport"
)

// NewPGSetting is the result of adding a PG setting: the setting and, for
// providers that have one, its generated api_key (shown once).
type NewPGSetting struct {
	Setting payport.PGSetting
	APIKey  string
}

// AddPGSetting adds a PG setting for provider to the merchant owning impKey.
// Its capabilities are those the sandbox grants the provider (decisions §4.1);
// pgID defaults to the provider's test merchant id.
func (s *Service) AddPGSetting(ctx context.Context, impKey, provider, pgID string) (NewPGSetting, error) {
	p, ok := payport.PGProviders[provider]
	if !ok {
		return NewPGSetting{}, payport.Invalid("provider", "must be one of "+strings.Join(providerCodes(), ", "))
	}
	if pgID == "" {
		pgID = p.TestPGID
	}
	var out NewPGSetting
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		m, err := tx.MerchantByIMPKey(ctx, impKey)
		if err != nil {
			return merchantLookupError(impKey, err)
		}
		set := payport.PGSetting{MerchantID: m.ID, Provider: p.Code, PGID: pgID, NonAuth: p.NonAuth, VBank: p.VBank, CreatedAt: s.clock.Now().Unix()}
		if p.HasAPIKey {
			out.APIKey = randomString(32, alnum)
			set.APIKeyHash = s.keys.HashSecret("pg_api_key", out.APIKey)
		}
		if err := tx.AddPGSetting(ctx, &set); payport.IsConflict(err) {
			return payport.Errorf(payport.KindRefused, "pg setting %s.%s already exists", provider, pgID)
		} else if err != nil {
			return fmt.Errorf("add pg setting: %w", err)
		}
		out.Setting = set
		return nil
	})
	return out, err
}

// PGSettings lists the PG settings of the merchant owning impKey.
func (s *Service) PGSettings(ctx context.Context, impKey string) ([]payport.PGSetting, error) {
	m, err := s.store.MerchantByIMPKey(ctx, impKey)
	if err != nil {
		return nil, merchantLookupError(impKey, err)
	}
	return s.store.PGSettings(ctx, m.ID)
}

// RemovePGSetting removes the merchant's setting provider.pgID.
func (s *Service) RemovePGSetting(ctx context.Context, impKey, provider, pgID string) error {
	return s.store.Update(ctx, func(tx payport.Tx) error {
		m, err := tx.MerchantByIMPKey(ctx, impKey)
		if err != nil {
			return merchantLookupError(impKey, err)
		}
		err = tx.RemovePGSetting(ctx, m.ID, provider, pgID)
		if payport.IsNotFound(err) {
			return payport.Errorf(payport.KindNotFound, "no pg setting %s.%s", provider, pgID)
		}
		return err
	})
}

func merchantLookupError(impKey string, err error) error {
	if payport.IsNotFound(err) {
		return payport.Errorf(payport.KindNotFound, "no merchant has imp_key %q", impKey)
	}
	return fmt.Errorf("load merchant: %w", err)
}

func providerCodes() []string {
	codes := make([]string, 0, len(payport.PGProviders))
	for c := range payport.PGProviders {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return codes
}
