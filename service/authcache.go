package service

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/payport/payport"
)

// authCache remembers, for at most authCacheTTL, which token belongs to
// which merchant, so that an authenticated request costs no storage reads
// for its credentials. Expiry is still judged on every request against the
// merchant's clock. Changes made through this service (a new token, a
// revoked sign-in, an advanced test clock, new settings) invalidate it at
// once; changes made by another node or the CLI show within the TTL, the
// same bound decisions §8 sets for settings.
type authCache struct {
	gen     atomic.Uint64 // bumped by every change that may affect authentication
	mu      sync.Mutex
	entries map[[32]byte]authEntry
}

type authEntry struct {
	token    payport.Token
	merchant payport.Merchant
	gen      uint64
	at       time.Time // monotonic: freshness is not a business rule
}

const (
	authCacheTTL = time.Second
	authCacheMax = 10000
)

func (c *authCache) get(key [32]byte) (authEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.gen != c.gen.Load() || time.Since(e.at) >= authCacheTTL {
		return authEntry{}, false
	}
	return e, true
}

func (c *authCache) put(key [32]byte, gen uint64, t payport.Token, m payport.Merchant) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= authCacheMax {
		c.entries = make(map[[32]byte]authEntry)
	}
	c.entries[key] = authEntry{token: t, merchant: m, gen: gen, at: time.Now()}
}

// invalidate drops every entry (lazily: their generation no longer matches).
func (c *authCache) invalidate() { c.gen.Add(1) }
