package webhook_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payport/payport"
	"github.com/payport/payport/webhook"
)

// The published Standard Webhooks test vector: a receiver's stock library
// must accept what we send.
const (
	vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTS     = 1614265330
	vectorBody   = `{"test": 2432232314}`
	vectorSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

// signedHeader builds the three headers, leaving out those given as zero.
func signedHeader(id string, ts int64, sig string) http.Header {
	h := http.Header{}
	if id != "" {
		h.Set(webhook.HeaderID, id)
	}
	if ts != 0 {
		h.Set(webhook.HeaderTimestamp, strconv.FormatInt(ts, 10))
	}
	if sig != "" {
		h.Set(webhook.HeaderSignature, sig)
	}
	return h
}

func TestSign_StandardWebhooksVector(t *testing.T) {
	t.Parallel()
	if got := webhook.Sign(vectorSecret, vectorID, vectorTS, []byte(vectorBody)); got != vectorSig {
		t.Fatalf("Sign = %q, want %q", got, vectorSig)
	}
	// The whsec_ prefix is optional, as in the reference implementations.
	if got := webhook.Sign(strings.TrimPrefix(vectorSecret, "whsec_"), vectorID, vectorTS, []byte(vectorBody)); got != vectorSig {
		t.Fatalf("Sign without prefix = %q, want %q", got, vectorSig)
	}
}

func TestVerify_RoundTrip(t *testing.T) {
	t.Parallel()
	now := time.Unix(vectorTS, 0)
	if err := webhook.Verify(vectorSecret, signedHeader(vectorID, vectorTS, vectorSig), []byte(vectorBody), now, 5*time.Minute); err != nil {
		t.Fatalf("vector: %v", err)
	}
	body := []byte(`{"imp_uid":"imp_1","merchant_uid":"o","status":"paid"}`)
	const secret = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM="
	sig := webhook.Sign(secret, "msg_1", 1_700_000_000, body)
	// Within tolerance either way, and with the default tolerance.
	for _, d := range []time.Duration{0, 5 * time.Minute, -5 * time.Minute} {
		if err := webhook.Verify(secret, signedHeader("msg_1", 1_700_000_000, sig), body, time.Unix(1_700_000_000, 0).Add(d), 0); err != nil {
			t.Fatalf("now %+v: %v", d, err)
		}
	}
}

func TestVerify_Rejects(t *testing.T) {
	t.Parallel()
	now := time.Unix(vectorTS, 0)
	body := []byte(vectorBody)
	otherSecret := "whsec_" + "b3RoZXItc2VjcmV0LWtleQ=="
	cases := []struct {
		name    string
		secret  string
		header  http.Header
		body    []byte
		now     time.Time
		want    error
		mention string
	}{
		{"missing id", vectorSecret, signedHeader("", vectorTS, vectorSig), body, now, webhook.ErrMissingHeader, "webhook-id"},
		{"missing timestamp", vectorSecret, signedHeader(vectorID, 0, vectorSig), body, now, webhook.ErrMissingHeader, "webhook-timestamp"},
		{"missing signature", vectorSecret, signedHeader(vectorID, vectorTS, ""), body, now, webhook.ErrMissingHeader, "webhook-signature"},
		{"timestamp not a number", vectorSecret, http.Header{"Webhook-Id": {vectorID}, "Webhook-Timestamp": {"2021-02-25"}, "Webhook-Signature": {vectorSig}}, body, now, webhook.ErrInvalidTimestamp, "2021-02-25"},
		{"tampered body", vectorSecret, signedHeader(vectorID, vectorTS, vectorSig), []byte(`{"test": 2432232315}`), now, webhook.ErrNoMatchingSignature, "webhook-signature"},
		{"wrong secret", otherSecret, signedHeader(vectorID, vectorTS, vectorSig), body, now, webhook.ErrNoMatchingSignature, "webhook-signature"},
		{"other id", vectorSecret, signedHeader("msg_other", vectorTS, vectorSig), body, now, webhook.ErrNoMatchingSignature, "webhook-signature"},
		{"not base64", vectorSecret, signedHeader(vectorID, vectorTS, "v1,***"), body, now, webhook.ErrNoMatchingSignature, "webhook-signature"},
		{"only an unknown version", vectorSecret, signedHeader(vectorID, vectorTS, "v2,"+strings.TrimPrefix(vectorSig, "v1,")), body, now, webhook.ErrNoMatchingSignature, "webhook-signature"},
		{"old timestamp", vectorSecret, signedHeader(vectorID, vectorTS, vectorSig), body, now.Add(5*time.Minute + time.Second), webhook.ErrTimestampOutOfTolerance, "301 s old"},
		{"future timestamp", vectorSecret, signedHeader(vectorID, vectorTS, vectorSig), body, now.Add(-5*time.Minute - time.Second), webhook.ErrTimestampOutOfTolerance, "301 s in the future"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := webhook.Verify(c.secret, c.header, c.body, c.now, 5*time.Minute)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.mention) {
				t.Fatalf("Verify = %v, want %v naming %q", err, c.want, c.mention)
			}
		})
	}
}

func TestVerify_RotatedSecretSendsTwoSignatures(t *testing.T) {
	t.Parallel()
	const oldSecret, newSecret, third = "whsec_b2xkLXNlY3JldA==", "whsec_bmV3LXNlY3JldA==", "whsec_dGhpcmQtc2VjcmV0"
	body := []byte(`{"imp_uid":"imp_1"}`)
	ts := int64(1_700_000_000)
	h := signedHeader("msg_rot", ts, webhook.Sign(oldSecret, "msg_rot", ts, body)+" "+webhook.Sign(newSecret, "msg_rot", ts, body))
	for _, s := range []string{oldSecret, newSecret} {
		if err := webhook.Verify(s, h, body, time.Unix(ts, 0), time.Minute); err != nil {
			t.Fatalf("secret %s: %v", s, err)
		}
	}
	if err := webhook.Verify(third, h, body, time.Unix(ts, 0), time.Minute); !errors.Is(err, webhook.ErrNoMatchingSignature) {
		t.Fatalf("a third secret: %v", err)
	}
}

func TestBody_JSONAndForm(t *testing.T) {
	t.Parallel()
	paid := payport.Event{IMPUID: "imp_123", MerchantUID: `order "1"/a&b`, Status: "paid"}
	cancelled := payport.Event{IMPUID: "imp_123", MerchantUID: "order 1", Status: "cancelled", CancelID: "cncl_9"}
	cases := []struct {
		name, contentType string
		e                 payport.Event
		body, mime        string
	}{
		{"json", payport.WebhookJSON, paid, `{"imp_uid":"imp_123","merchant_uid":"order \"1\"/a\u0026b","status":"paid"}`, "application/json"},
		{"json cancel", payport.WebhookJSON, cancelled, `{"imp_uid":"imp_123","merchant_uid":"order 1","status":"cancelled","cancellation_id":"cncl_9"}`, "application/json"},
		{"default is json", "", cancelled, `{"imp_uid":"imp_123","merchant_uid":"order 1","status":"cancelled","cancellation_id":"cncl_9"}`, "application/json"},
		{"form", payport.WebhookForm, paid, "imp_uid=imp_123&merchant_uid=order+%221%22%2Fa%26b&status=paid", "application/x-www-form-urlencoded"},
		{"form cancel", payport.WebhookForm, cancelled, "imp_uid=imp_123&merchant_uid=order+1&status=cancelled&cancellation_id=cncl_9", "application/x-www-form-urlencoded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			body, mime := webhook.Body(c.e, c.contentType)
			if string(body) != c.body || mime != c.mime {
				t.Fatalf("Body = %s (%s), want %s (%s)", body, mime, c.body, c.mime)
			}
		})
	}
}
