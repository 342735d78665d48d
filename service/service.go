package service

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/payport/payport"
)

// Service is the application layer. It is safe for concurrent use.
type Service struct {
	store     payport.Store
	gateway   payport.Gateway
	clock     payport.Clock
	observe   Observer
	keys      Keys
	publicURL string

	// auth caches token lookups (authcache.go).
	auth authCache

	// wake is called after a change that may make schedules due now.
	wake atomic.Pointer[func()]
	// webhookWake is called after an event was queued for redelivery.
	webhookWake atomic.Pointer[func()]
}

// OnSchedulesDue registers f to be called after a change that may have
// made schedules due (a new schedule, an advanced test clock), so the
// scheduler runs them at once instead of at its next poll.
func (s *Service) OnSchedulesDue(f func()) { s.wake.Store(&f) }

func (s *Service) wakeScheduler() {
	if f := s.wake.Load(); f != nil {
		(*f)()
	}
}

// Config holds what a Service needs besides storage.
type Config struct {
	// Gateway moves money; required.
	Gateway payport.Gateway
	// Clock defaults to the system clock.
	Clock payport.Clock
	// SecretKey is the server key that hashes secrets and derives tokens.
	// It must be at least 32 bytes and identical on every node.
	SecretKey []byte
	// PublicURL is the base of the receipt URLs payport hands out.
	PublicURL string
	// Observer learns of committed changes (metrics); nil ignores them.
	Observer Observer
}

// New returns a Service over store.
func New(store payport.Store, cfg Config) (*Service, error) {
	if len(cfg.SecretKey) < 32 {
		return nil, fmt.Errorf("service: secret key must be at least 32 bytes, got %d", len(cfg.SecretKey))
	}
	if cfg.Gateway == nil {
		return nil, fmt.Errorf("service: a gateway is required")
	}
	if cfg.Observer == nil {
		cfg.Observer = noObserver{}
	}
	if cfg.Clock == nil {
		cfg.Clock = payport.SystemClock{}
	}
	return &Service{
		store:     store,
		gateway:   cfg.Gateway,
		observe:   cfg.Observer,
		clock:     cfg.Clock,
		keys:      Keys{secret: cfg.SecretKey},
		publicURL: strings.TrimRight(cfg.PublicURL, "/"),
	}, nil
}

// now returns the current time on m's clock in UNIX seconds: the server's
// time plus the merchant's sandbox offset.
func (s *Service) now(m payport.Merchant) int64 {
	return s.clock.Now().Unix() + m.ClockOffset
}

// merchantByID loads a merchant; an unknown id is an internal error because
// callers only hold ids that came from storage.
func (s *Service) merchantByID(ctx context.Context, id int64) (payport.Merchant, error) {
	m, err := s.store.MerchantByID(ctx, id)
	if err != nil {
		return payport.Merchant{}, fmt.Errorf("load merchant %d: %w", id, err)
	}
	return m, nil
}
