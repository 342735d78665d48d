package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// call is one JSON request to a node; it returns the HTTP status and the
// envelope, or an error when the node did not answer.
func call(method, url, token string, body any) (int, map[string]any, error) {
	status, raw, err := callRaw(method, url, token, body)
	if err != nil {
		return 0, nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return status, nil, err
	}
	return status, out, nil
}

// callRaw sends one JSON request and returns the status and the raw body.
func callRaw(method, url, token string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// postJSON sends a JSON request and fails the test unless it answers a
// success envelope, which it returns.
func postJSON(t *testing.T, url, token string, body any) map[string]any {
	t.Helper()
	status, out, err := call("POST", url, token, body)
	if err != nil || status != http.StatusOK || out["code"] != float64(0) {
		t.Fatalf("POST %s: %d %v %v", url, status, out, err)
	}
	return out
}

// counter returns a function that runs a count query on db.
func counter(t *testing.T, db *sql.DB) func(query string) int {
	return func(query string) int {
		t.Helper()
		var v int
		if err := db.QueryRow(query).Scan(&v); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return v
	}
}

// waitUntil polls cond until it holds, failing the test after limit: the
// way to wait for background work without sleeping a fixed time.
func waitUntil(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
