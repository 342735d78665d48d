package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRequestLog_HasNoSecrets(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	tok := m.token()
	pair := b.request("POST", "/v2/signin/api-key", jsonBody{"api_key": m.cred.APIKey}, nil)
	sandboxPaid(m, "order-1")
	m.get("/payments?imp_uid[]=imp_000000000000&secret=" + m.cred.IMPSecret)

	logs := b.logs.String()
	for name, secret := range map[string]string{
		"imp_secret": m.cred.IMPSecret, "api_key": m.cred.APIKey, "access token": tok,
		"sign-in access": pair.body["access_token"].(string), "refresh": pair.body["refresh_token"].(string),
	} {
		if strings.Contains(logs, secret) {
			t.Errorf("the request log contains the %s", name)
		}
	}
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	if len(lines) != 4 {
		t.Fatalf("want one log line per request (4), got %d:\n%s", len(lines), logs)
	}
	var last struct {
		HTTP map[string]any `json:"http"`
	}
	if err := json.Unmarshal([]byte(lines[3]), &last); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"request_id", "method", "path", "route", "status", "duration_ms", "merchant_id"} {
		if _, ok := last.HTTP[k]; !ok {
			t.Errorf("log line lacks %s: %s", k, lines[3])
		}
	}
	if last.HTTP["route"] != "/payments" || last.HTTP["status"] != float64(404) {
		t.Errorf("log line = %s", lines[3])
	}
}
