package service

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"

	"github.com/payport/payport"
)

// authCache remembers, for at most authCacheTTL, which token belongs to
// which merchant (and which current token and merchant an imp_key has), so
// that an authenticated request or a repeated getToken costs no storage
// reads for its credentials. Expiry is still judged on every request against the
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

// cacheKey separates the kinds of entries sharing the cache.
func cacheKey(kind, value string) [32]byte {
	return sha256.Sum256([]byte(kind + "\x00" + value))
}

// invalidate drops every entry (lazily: their generation no longer matches).
func (c *authCache) invalidate() { c.gen.Add(1) }
