package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Standard Webhooks headers of a delivery.
const (
	HeaderID        = "webhook-id"        // the event's WebhookID, the same on every attempt
	HeaderTimestamp = "webhook-timestamp" // UNIX seconds of the attempt
	HeaderSignature = "webhook-signature" // space-separated "v1,<base64>" signatures
)

// SecretPrefix starts every signing secret: "whsec_" then the base64 key.
const SecretPrefix = "whsec_"

// DefaultTolerance is how far a webhook-timestamp may be from the
// receiver's clock when Verify is given no tolerance.
const DefaultTolerance = 5 * time.Minute

// Errors of Verify; the error it returns wraps one of them and names the
// header and the value at fault.
var (
	// ErrMissingHeader: webhook-id, webhook-timestamp or webhook-signature is absent.
	ErrMissingHeader = errors.New("webhook: missing header")
	// ErrInvalidTimestamp: webhook-timestamp is not a UNIX time in seconds.
	ErrInvalidTimestamp = errors.New("webhook: invalid timestamp")
	// ErrTimestampOutOfTolerance: webhook-timestamp is too old or too far in the future.
	ErrTimestampOutOfTolerance = errors.New("webhook: timestamp out of tolerance")
	// ErrNoMatchingSignature: no v1 signature of webhook-signature matches the body.
	ErrNoMatchingSignature = errors.New("webhook: no matching signature")
)

// signingKey returns the HMAC key of a secret: the base64-decoded part after
// the optional "whsec_" prefix. A part that is not standard base64 is used
// as raw bytes, so that Sign and Verify still agree on it.
func signingKey(secret string) []byte {
	s := strings.TrimPrefix(secret, SecretPrefix)
	if k, err := base64.StdEncoding.DecodeString(s); err == nil {
		return k
	}
	return []byte(s)
}

// Sign returns the Standard Webhooks signature of a message:
// "v1," + base64(HMAC-SHA256(key, msgID + "." + timestamp + "." + body)),
// keyed with the base64-decoded part of secret after "whsec_".
func Sign(secret, msgID string, timestamp int64, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(mac(signingKey(secret), msgID, timestamp, body))
}

func mac(key []byte, msgID string, timestamp int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msgID))
	h.Write([]byte{'.'})
	h.Write(strconv.AppendInt(nil, timestamp, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks a delivery the way a receiver does: the webhook-id,
// webhook-timestamp and webhook-signature headers must be present, the
// timestamp must lie within tolerance of now (either way; tolerance <= 0
// means DefaultTolerance), and at least one of the space-separated
// signatures must be a v1 signature of body under secret (a sender rotating
// its secret sends one per secret). The error wraps one of the Err values
// of this package and names what is wrong.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, tsText, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	for _, p := range []struct{ name, value string }{{HeaderID, id}, {HeaderTimestamp, tsText}, {HeaderSignature, sigs}} {
		if p.value == "" {
			return fmt.Errorf("%w: %s", ErrMissingHeader, p.name)
		}
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %s %q is not UNIX seconds", ErrInvalidTimestamp, HeaderTimestamp, tsText)
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	tol := int64(tolerance / time.Second)
	switch age := now.Unix() - ts; {
	case age > tol:
		return fmt.Errorf("%w: %s %d is %d s old, more than %s", ErrTimestampOutOfTolerance, HeaderTimestamp, ts, age, tolerance)
	case -age > tol:
		return fmt.Errorf("%w: %s %d is %d s in the future, more than %s", ErrTimestampOutOfTolerance, HeaderTimestamp, ts, -age, tolerance)
	}
	want := mac(signingKey(secret), id, ts, body)
	for sig := range strings.FieldsSeq(sigs) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return fmt.Errorf("%w: none of the signatures in %s is a v1 signature of the body with this secret", ErrNoMatchingSignature, HeaderSignature)
}
