package httpapi

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"net/http"
	"strings"
)

// openapiFiles holds the OpenAPI document of the whole HTTP surface and the
// static page that renders it (no external resources).
//
//go:embed openapi/openapi.json openapi/docs.html openapi/docs.css openapi/docs.js
var openapiFiles embed.FS

var (
	openapiJSON = mustRead("openapi/openapi.json")
	docsCSS     = mustRead("openapi/docs.css")
	docsJS      = mustRead("openapi/docs.js")
	// docsPage is docs.html with its stylesheet and script inlined, so that
	// the page needs only GET /docs and GET /openapi.json.
	docsPage = []byte(strings.NewReplacer("/*STYLE*/", string(docsCSS), "/*SCRIPT*/", string(docsJS)).
			Replace(string(mustRead("openapi/docs.html"))))
	// docsPolicy allows exactly the inlined script and stylesheet, and
	// fetching from this server only.
	docsPolicy = "default-src 'none'; connect-src 'self'; img-src 'self' data:; script-src '" + sha256Source(docsJS) +
		"'; style-src '" + sha256Source(docsCSS) + "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

func sha256Source(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

func mustRead(name string) []byte {
	b, err := openapiFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// OpenAPIDocument returns the OpenAPI document served at GET /openapi.json.
func OpenAPIDocument() []byte {
	return append([]byte(nil), openapiJSON...)
}

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(openapiJSON)
}

func serveDocs(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Security-Policy", docsPolicy)
	_, _ = w.Write(docsPage)
}
