package service

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/payport/payport"
)

// Credentials are a new merchant's secrets. They are shown once: payport
// keeps only their hashes.
type Credentials struct {
	MerchantID int64  `json:"merchant_id"`
	IMPKey     string `json:"imp_key"`
	IMPSecret  string `json:"imp_secret"`
	APIKey     string `json:"api_key"`
}

// CreateMerchant creates a merchant with a REST key pair, one API key and
// the default PG settings, and returns the credentials.
func (s *Service) CreateMerchant(ctx context.Context, name string) (Credentials, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Credentials{}, payport.Invalid("name", "required")
	}
	if len([]rune(name)) > 100 {
		return Credentials{}, payport.Invalid("name", "must be at most 100 characters")
	}
	cred := Credentials{
		IMPKey:    randomDigits(16),
		IMPSecret: randomString(80, alnum),
		APIKey:    randomString(64, alnum),
	}
	now := s.clock.Now().Unix()
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		m := payport.Merchant{
			Name:               name,
			IMPKey:             cred.IMPKey,
			IMPSecretHash:      s.keys.HashSecret("imp_secret", cred.IMPSecret),
			WebhookContentType: payport.WebhookJSON,
			WebhookMaxAttempts: payport.DefaultWebhookMaxAttempts,
			WebhookSecretID:    randomID(),
			CreatedAt:          now,
		}
		if err := tx.CreateMerchant(ctx, &m); err != nil {
			return fmt.Errorf("create merchant: %w", err)
		}
		cred.MerchantID = m.ID
		if err := tx.AddAPIKey(ctx, payport.APIKey{Hash: s.keys.HashSecret("api_key", cred.APIKey), MerchantID: m.ID, CreatedAt: now}); err != nil {
			return fmt.Errorf("add api key: %w", err)
		}
		for _, def := range payport.DefaultPGSettings {
			pg := def
			pg.MerchantID, pg.CreatedAt = m.ID, now
			if err := tx.AddPGSetting(ctx, &pg); err != nil {
				return fmt.Errorf("add pg setting: %w", err)
			}
		}
		return nil
	})
	return cred, err
}

// Merchants lists every merchant.
func (s *Service) Merchants(ctx context.Context) ([]payport.Merchant, error) {
	return s.store.Merchants(ctx)
}

// MerchantByIMPKey returns the merchant owning impKey.
func (s *Service) MerchantByIMPKey(ctx context.Context, impKey string) (payport.Merchant, error) {
	m, err := s.store.MerchantByIMPKey(ctx, impKey)
	if payport.IsNotFound(err) {
		return m, payport.Errorf(payport.KindNotFound, "no merchant has imp_key %q", impKey)
	}
	return m, err
}

// MerchantSettings are the per-merchant settings of decisions §8; a nil
// field is left unchanged.
type MerchantSettings struct {
	NotificationURL    *string
	WebhookContentType *string
	ScheduleListPaged  *bool
}

// UpdateMerchantSettings changes the settings of the merchant owning impKey.
func (s *Service) UpdateMerchantSettings(ctx context.Context, impKey string, set MerchantSettings) (payport.Merchant, error) {
	if err := set.validate(); err != nil {
		return payport.Merchant{}, err
	}
	var out payport.Merchant
	err := s.store.Update(ctx, func(tx payport.Tx) error {
		m, err := tx.MerchantByIMPKey(ctx, impKey)
		if payport.IsNotFound(err) {
			return payport.Errorf(payport.KindNotFound, "no merchant has imp_key %q", impKey)
		} else if err != nil {
			return err
		}
		if set.NotificationURL != nil {
			m.NotificationURL = *set.NotificationURL
		}
		if set.WebhookContentType != nil {
			m.WebhookContentType = *set.WebhookContentType
		}
		if set.ScheduleListPaged != nil {
			m.ScheduleListPaged = *set.ScheduleListPaged
		}
		out = m
		return tx.UpdateMerchant(ctx, m)
	})
	s.auth.invalidate()
	return out, err
}

func (set MerchantSettings) validate() error {
	if set.NotificationURL != nil && *set.NotificationURL != "" {
		if err := validateHTTPURL(*set.NotificationURL); err != nil {
			return payport.Invalid("notification-url", err.Error())
		}
	}
	if set.WebhookContentType != nil {
		switch *set.WebhookContentType {
		case payport.WebhookJSON, payport.WebhookForm:
		default:
			return payport.Invalid("webhook-content-type", "must be json or form")
		}
	}
	return nil
}

func validateHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an absolute http or https URL")
	}
	return nil
}
