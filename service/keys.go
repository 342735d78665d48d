package service

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// Keys derives everything payport must recompute or verify from the one
// server key: hashes of high-entropy secrets (imp_secret, API keys, PG api
// keys), REST access tokens (re-derivable from a random id, so the same token
// can be handed out again without being stored), and webhook signing secrets.
// Each use has its own label so no derived value can stand in for another.
type Keys struct {
	secret []byte
}

func (k Keys) mac(label, value string) []byte {
	h := hmac.New(sha256.New, k.secret)
	h.Write([]byte(label))
	h.Write([]byte{0})
	h.Write([]byte(value))
	return h.Sum(nil)
}

// HashSecret returns the keyed hash under which a secret of the given kind
// ("imp_secret", "api_key", "pg_api_key") is stored. Secrets are random and
// long, so a keyed hash is as strong as a password hash and far cheaper.
func (k Keys) HashSecret(kind, secret string) []byte { return k.mac("secret:"+kind, secret) }

// RESTToken derives the text of a REST access token from its random id:
// 40 hexadecimal characters (160 bits), the shape of real I'mport tokens.
func (k Keys) RESTToken(id string) string { return hex.EncodeToString(k.mac("rest-token", id)[:20]) }

// WebhookSecret derives a merchant's webhook signing secret, `whsec_<base64>`.
func (k Keys) WebhookSecret(id string) string {
	return "whsec_" + base64.StdEncoding.EncodeToString(k.mac("webhook-secret", id))
}

// tokenHash is the lookup key of a token in storage: SHA-256 of its text.
// Tokens are high-entropy, so an unkeyed hash does not reveal them.
func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randomString returns n characters drawn uniformly from alphabet (at most
// 256 characters), by rejection sampling over crypto/rand bytes.
func randomString(n int, alphabet string) string {
	out := make([]byte, 0, n)
	limit := 256 - 256%len(alphabet)
	buf := make([]byte, n+n/2+8)
	for len(out) < n {
		_, _ = rand.Read(buf) // never fails (crypto/rand)
		for _, c := range buf {
			if int(c) < limit && len(out) < n {
				out = append(out, alphabet[int(c)%len(alphabet)])
			}
		}
	}
	return string(out)
}

// randomDigits returns n random decimal digits.
func randomDigits(n int) string { return randomString(n, "0123456789") }

// randomID returns 128 random bits as 32 hexadecimal characters.
func randomID() string { return randomString(32, "0123456789abcdef") }
