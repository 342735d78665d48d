package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/go-chi/chi/v5"

	"github.com/payport/payport/httpapi"
)

// Every request the suite sends through the harness, and its response, is
// checked against the OpenAPI document (httpapi/openapi/openapi.json), so
// the document and the code cannot drift apart:
//
//   - the response always: its status must be documented for the operation
//     and its headers and body must match; a request that matches no
//     operation must have been answered 404 (unknown path) or 405 (wrong
//     method) with the failure envelope;
//   - the request only when it succeeded (2xx, including 207 and HTTP-200
//     refusals): the suite sends malformed requests on purpose, and those
//     are documented by their error responses.
//
// Two tolerances of decisions §1.7 that OpenAPI cannot express are applied
// before validation: one trailing slash is dropped from the path, and form
// keys and values are trimmed. A body without a content type is read as
// payport reads it (JSON when it starts with '{' or '[', else a form).
func init() {
	exchangeHook = validateExchange
	// GET /docs answers HTML, which the validator reads as text.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

var (
	oaOnce   sync.Once
	oaDoc    *openapi3.T
	oaRouter routers.Router
	oaErr    error

	oaResponses atomic.Int64 // responses validated
	oaRequests  atomic.Int64 // requests validated
	oaUnrouted  atomic.Int64 // 404/405 answers to requests matching no operation
	oaCovered   sync.Map     // "METHOD /path/template" of every operation seen
	oaBroken    sync.Map     // tests told that the document does not load
)

// openAPI loads the embedded document once, validated, with its router.
func openAPI() (*openapi3.T, routers.Router, error) {
	oaOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(httpapi.OpenAPIDocument())
		if err != nil {
			oaErr = fmt.Errorf("load: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			oaErr = fmt.Errorf("validate: %w", err)
			return
		}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			oaErr = fmt.Errorf("router: %w", err)
			return
		}
		oaDoc, oaRouter = doc, router
	})
	return oaDoc, oaRouter, oaErr
}

// authenticate accepts the request when the header of the security scheme
// is present: the server, not the validator, judges tokens.
func authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header
	s := in.SecurityScheme
	switch {
	case s.Type == "http" && s.Scheme == "bearer":
		if scheme, _, ok := strings.Cut(h.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			return nil
		}
	case s.Type == "apiKey" && s.In == "header":
		if h.Get(s.Name) != "" {
			return nil
		}
	}
	return fmt.Errorf("no %s credentials", in.SecuritySchemeName)
}

var oaOptions = &openapi3filter.Options{
	AuthenticationFunc:    authenticate,
	IncludeResponseStatus: true,
	MultiError:            true,
}

func validateExchange(t *testing.T, req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	t.Helper()
	doc, router, err := openAPI()
	if err != nil {
		if _, told := oaBroken.LoadOrStore(t, true); !told {
			t.Errorf("openapi: the document is broken, nothing is validated: %v", err)
		}
		return
	}
	ctx := context.Background()
	what := fmt.Sprintf("%s %s → %d", req.Method, req.URL.RequestURI(), resp.StatusCode)

	vreq, body := validationRequest(req, reqBody)
	route, pathParams, err := router.FindRoute(vreq)
	if err != nil {
		oaUnrouted.Add(1)
		want := http.StatusNotFound
		if errors.Is(err, routers.ErrMethodNotAllowed) {
			want = http.StatusMethodNotAllowed
		}
		if resp.StatusCode != want {
			t.Errorf("openapi: %s: the request matches no operation (%v), so the answer must be %d", what, err, want)
			return
		}
		var env struct{ Code int }
		if err := validateBody(doc, "ErrorEnvelope", respBody); err != nil {
			t.Errorf("openapi: %s: unrouted answer: %v", what, err)
		} else if _ = json.Unmarshal(respBody, &env); env.Code != -1 {
			t.Errorf("openapi: %s: unrouted answer has code %d, want -1 (decisions §1.3)", what, env.Code)
		}
		oaResponses.Add(1)
		return
	}
	oaCovered.Store(strings.ToUpper(route.Method)+" "+route.Path, true)
	input := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: pathParams, Route: route, Options: oaOptions}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		vreq.Body = io.NopCloser(bytes.NewReader(body))
		if err := openapi3filter.ValidateRequest(ctx, input); err != nil {
			t.Errorf("openapi: request %s (operation %s): %v\nrequest body: %s", what, route.Operation.OperationID, err, clip(body))
		}
		oaRequests.Add(1)
	}
	rin := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: input,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                oaOptions,
	}
	rin.SetBodyBytes(respBody)
	if err := openapi3filter.ValidateResponse(ctx, rin); err != nil {
		t.Errorf("openapi: response %s (operation %s): %v\nresponse body: %s", what, route.Operation.OperationID, err, clip(respBody))
	}
	oaResponses.Add(1)
}

// validationRequest returns a copy of req as the document describes it:
// path without one trailing slash, body with a content type, form keys and
// values trimmed (decisions §1.7).
func validationRequest(req *http.Request, reqBody []byte) (*http.Request, []byte) {
	v := req.Clone(context.Background())
	u := *req.URL
	if len(u.Path) > 1 && strings.HasSuffix(u.Path, "/") {
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	}
	v.URL = &u
	body := bytes.TrimSpace(reqBody)
	ct, _, _ := mime.ParseMediaType(v.Header.Get("Content-Type"))
	if len(body) > 0 && ct != "application/json" && !strings.HasSuffix(ct, "+json") && ct != "application/x-www-form-urlencoded" {
		if body[0] == '{' || body[0] == '[' {
			ct = "application/json"
		} else {
			ct = "application/x-www-form-urlencoded"
		}
		v.Header.Set("Content-Type", ct)
	}
	if ct == "application/x-www-form-urlencoded" {
		if values, err := url.ParseQuery(string(body)); err == nil {
			trimmed := url.Values{}
			for k, vs := range values {
				for _, s := range vs {
					trimmed.Add(strings.TrimSpace(k), strings.TrimSpace(s))
				}
			}
			body = []byte(trimmed.Encode())
		}
	}
	v.Body = io.NopCloser(bytes.NewReader(body))
	v.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	v.ContentLength = int64(len(body))
	return v, body
}

// validateBody checks raw against a component schema of the document.
func validateBody(doc *openapi3.T, schema string, raw []byte) error {
	ref := doc.Components.Schemas[schema]
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("no schema %s", schema)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("body is not JSON: %v", err)
	}
	return ref.Value.VisitJSON(v, openapi3.VisitAsResponse(), openapi3.MultiErrors())
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// TestMain reports how many exchanges the OpenAPI hook validated and which
// operations no test exercised.
func TestMain(m *testing.M) {
	code := m.Run()
	if n := oaResponses.Load(); n > 0 {
		fmt.Printf("openapi: validated %d responses and %d requests (%d answers to requests matching no operation)\n",
			n, oaRequests.Load(), oaUnrouted.Load())
		if doc, _, err := openAPI(); err == nil && testing.Verbose() {
			var missing []string
			for _, op := range operations(doc) {
				if _, ok := oaCovered.Load(op); !ok {
					missing = append(missing, op)
				}
			}
			if len(missing) > 0 {
				fmt.Printf("openapi: operations no harness exchange reached: %s\n", strings.Join(missing, ", "))
			}
		}
	}
	os.Exit(code)
}

// operations lists "METHOD /path" of every operation of the document.
func operations(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(out)
	return out
}

func TestOpenAPI_DocumentIsServedAndValid(t *testing.T) {
	b := setup(t)
	res := b.request("GET", "/openapi.json", nil, nil)
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("GET /openapi.json: %d %q", res.status, res.header.Get("Content-Type"))
	}
	if !bytes.Equal(res.raw, httpapi.OpenAPIDocument()) {
		t.Fatalf("GET /openapi.json differs from httpapi.OpenAPIDocument()")
	}
	doc, err := openapi3.NewLoader().LoadFromData(res.raw)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi = %q", doc.OpenAPI)
	}
	// The operational routes no other test calls, through the validating hook.
	if res := b.request("GET", "/readyz", nil, nil); res.status != http.StatusOK {
		t.Fatalf("GET /readyz: %d %s", res.status, res.raw)
	}
}

// TestOpenAPI_DocumentsEveryRoute compares the chi routes with the
// document's operations, both ways.
func TestOpenAPI_DocumentsEveryRoute(t *testing.T) {
	b := setup(t)
	doc, _, err := openAPI()
	if err != nil {
		t.Fatal(err)
	}
	h, ok := httpapi.New(b.svc, httpapi.Options{Sandbox: true}).(chi.Routes)
	if !ok {
		t.Fatal("httpapi.New does not return a chi router")
	}
	var routes []string
	err = chi.Walk(h, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routes = append(routes, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(routes)
	documented := operations(doc)
	for _, r := range routes {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is not in the OpenAPI document", r)
		}
	}
	for _, op := range documented {
		method, path, _ := strings.Cut(op, " ")
		if o := doc.Paths.Value(path).GetOperation(method); o.Extensions["x-payport-mounted-when"] != nil {
			continue // mounted only with an option the test does not set (GET /metrics)
		}
		if !slices.Contains(routes, op) {
			t.Errorf("operation %s of the OpenAPI document has no route", op)
		}
	}
	if len(routes) < 29 {
		t.Errorf("only %d routes: %v", len(routes), routes)
	}
}

// TestOpenAPI_Deprecation: every I'mport operation is deprecated (decisions
// §1.8); payport's own sandbox and operational routes (health, readiness,
// metrics, documentation) are not.
func TestOpenAPI_Deprecation(t *testing.T) {
	doc, _, err := openAPI()
	if err != nil {
		t.Fatal(err)
	}
	own := regexp.MustCompile(`^(/sandbox/|/healthz$|/readyz$|/metrics$|/openapi\.json$|/docs$)`)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if want := !own.MatchString(path); op.Deprecated != want {
				t.Errorf("%s %s: deprecated = %v, want %v", method, path, op.Deprecated, want)
			}
			if op.OperationID == "" || op.Summary == "" || len(op.Tags) != 1 {
				t.Errorf("%s %s: operationId, summary and one tag are required", method, path)
			}
		}
	}
}

var externalRef = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//`)

// TestOpenAPI_DocsPage: /docs is a self-contained HTML page (no CDN) that
// loads the document from a relative URL.
func TestOpenAPI_DocsPage(t *testing.T) {
	b := setup(t)
	for _, path := range []string{"/docs", "/docs/"} {
		req, err := http.NewRequest("GET", b.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		validateExchange(t, req, nil, resp, raw)
		page := string(raw)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("GET %s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if !strings.HasPrefix(page, "<!doctype html>") || !strings.Contains(page, "openapi.json") {
			t.Fatalf("GET %s: not the docs page: %.200s", path, page)
		}
		if m := externalRef.FindString(page); m != "" {
			t.Errorf("GET %s: the page references an absolute URL: %q", path, m)
		}
		if strings.Contains(page, "/*SCRIPT*/") || strings.Contains(page, "/*STYLE*/") || strings.Count(page, "<script") != 1 {
			t.Errorf("GET %s: script and style must be inlined once", path)
		}
		if strings.Contains(strings.ToLower(page), "<script src") || strings.Contains(strings.ToLower(page), "<link") {
			t.Errorf("GET %s: the page loads other resources", path)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'sha256-") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s: Content-Security-Policy %q must allow the inlined script by hash only", path, csp)
		}
	}
}
