package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/payport/payport"
)

// params is a decoded request: a JSON object, or a form whose bracketed
// keys (`a[b][0]=x`) were folded into the same nested shape. Accessors
// convert leniently (real clients send numbers as strings) and remember the
// first error, which names the field and the rule.
type params struct {
	m   map[string]any
	err error
}

// decodeBody reads a JSON or form body (decisions §1.7). A body with no or
// an unknown content type is read as JSON when it starts with '{' or '[',
// else as a form. An empty body is an empty object.
func decodeBody(r *http.Request) (*params, error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	raw = bytes.TrimSpace(raw)
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	isJSON := ct == "application/json" || strings.HasSuffix(ct, "+json") ||
		(ct != "application/x-www-form-urlencoded" && len(raw) > 0 && (raw[0] == '{' || raw[0] == '['))
	if len(raw) == 0 {
		return &params{m: map[string]any{}}, nil
	}
	if isJSON {
		return decodeJSON(raw)
	}
	values, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, payport.Invalid("body", "malformed form encoding")
	}
	return decodeForm(values)
}

func decodeJSON(raw []byte) (*params, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, payport.Invalid("body", "must be a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, payport.Invalid("body", "must hold exactly one JSON object")
	}
	return &params{m: m}, nil
}

// decodeForm folds form or query values into a nested object. Keys and
// values are trimmed; `a[]` and a repeated plain key collect into an
// array; `a[0]`, `a[1]` index one; `a[b]` names a member.
func decodeForm(values url.Values) (*params, error) {
	root := map[string]any{}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		path, err := splitKey(strings.TrimSpace(key))
		if err != nil {
			return nil, err
		}
		for _, v := range values[key] {
			if err := setPath(root, path, strings.TrimSpace(v), len(values[key]) > 1); err != nil {
				return nil, err
			}
		}
	}
	return &params{m: arrayify(root).(map[string]any)}, nil
}

var (
	bracketKey = regexp.MustCompile(`^([^\[\]]+)((?:\[[^\[\]]*\])*)$`)
	bracketSeg = regexp.MustCompile(`\[([^\[\]]*)\]`)
)

// splitKey splits `a[b][]` into ["a", "b", ""].
func splitKey(key string) ([]string, error) {
	mm := bracketKey.FindStringSubmatch(key)
	if mm == nil {
		return nil, payport.Invalid(key, "malformed form key")
	}
	path := []string{mm[1]}
	for _, seg := range bracketSeg.FindAllStringSubmatch(mm[2], -1) {
		path = append(path, seg[1])
	}
	return path, nil
}

// setPath stores v under path; an empty segment appends. Arrays are built
// as maps keyed by position and turned into slices by arrayify.
func setPath(node map[string]any, path []string, v string, repeated bool) error {
	for i, seg := range path {
		if seg == "" {
			seg = strconv.Itoa(len(node))
		}
		last := i == len(path)-1
		if last && repeated && len(path) == 1 {
			list, _ := node[seg].(map[string]any)
			if list == nil {
				list = map[string]any{}
				node[seg] = list
			}
			list[strconv.Itoa(len(list))] = v
			return nil
		}
		if last {
			if _, taken := node[seg]; taken {
				return payport.Invalid(strings.Join(path, "."), "given more than once")
			}
			node[seg] = v
			return nil
		}
		child, ok := node[seg].(map[string]any)
		if !ok {
			if _, taken := node[seg]; taken {
				return payport.Invalid(path[0], "conflicting form keys")
			}
			child = map[string]any{}
			node[seg] = child
		}
		node = child
	}
	return nil
}

// arrayify turns maps whose keys are exactly 0..n-1 into slices.
func arrayify(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for k, c := range m {
		m[k] = arrayify(c)
	}
	list := make([]any, len(m))
	for k, c := range m {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= len(m) || strconv.Itoa(i) != k {
			return m
		}
		list[i] = c
	}
	if len(m) == 0 {
		return m
	}
	return list
}

func (p *params) fail(field, rule string) {
	if p.err == nil {
		p.err = payport.Invalid(field, rule)
	}
}

// str returns a string field ("" when absent). Numbers are taken as their text.
func (p *params) str(name string) string {
	switch v := p.m[name].(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	default:
		p.fail(name, "must be a string")
		return ""
	}
}

var decimalText = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// decimal returns a number field as exact decimal text ("" when absent).
// An empty string counts as absent: form clients send optional numbers
// that way (`checksum=`).
func (p *params) decimal(name string) string {
	var s string
	switch v := p.m[name].(type) {
	case nil:
		return ""
	case json.Number:
		s = v.String()
	case string:
		if s = strings.TrimSpace(v); s == "" {
			return ""
		}
	default:
		p.fail(name, "must be a number")
		return ""
	}
	if !decimalText.MatchString(s) {
		p.fail(name, "must be a number")
		return ""
	}
	return s
}

// int returns an integer field, or nil when absent.
func (p *params) int(name string) *int64 {
	s := p.decimal(name)
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		p.fail(name, "must be an integer")
		return nil
	}
	return &n
}

// jsonText returns a field as text, an object or array as its JSON text
// (custom_data is stored and returned as a JSON string).
func (p *params) jsonText(name string) string {
	switch v := p.m[name].(type) {
	case map[string]any, []any:
		b, err := json.Marshal(v)
		if err != nil {
			p.fail(name, "must be JSON")
			return ""
		}
		return string(b)
	case bool:
		return strconv.FormatBool(v)
	default:
		return p.str(name)
	}
}

// strs returns a field that may be one string or an array of strings.
func (p *params) strs(name string) []string {
	switch v := p.m[name].(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				p.fail(name, "must be an array of strings")
				return nil
			}
			out = append(out, s)
		}
		return out
	default:
		if s := p.str(name); s != "" {
			return []string{s}
		}
		return nil
	}
}

// bool returns a boolean field (false when absent); forms send "true"/"false" or "1"/"0".
func (p *params) bool(name string) bool {
	switch v := p.m[name].(type) {
	case nil:
		return false
	case bool:
		return v
	case string, json.Number:
		b, err := strconv.ParseBool(p.str(name))
		if err != nil {
			p.fail(name, "must be true or false")
		}
		return b
	default:
		p.fail(name, "must be true or false")
		return false
	}
}

// decimals returns an object field whose members are numbers, as exact
// decimal text keyed by member name; nil when absent.
func (p *params) decimals(name string) map[string]string {
	v, ok := p.m[name]
	if !ok || v == nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.fail(name, "must be an object")
		return nil
	}
	out := make(map[string]string, len(obj))
	sub := &params{m: obj}
	for k := range obj {
		out[k] = sub.decimal(k)
		if sub.err != nil {
			p.fail(name+"."+k, "must be a number")
			return nil
		}
	}
	return out
}

// objects returns an array field whose elements are objects (JSON) or
// bracketed form groups (`a[0][b]=…`), each as params that report errors
// under `name[i].field`; nil when absent.
func (p *params) objects(name string) []*params {
	v, ok := p.m[name]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		if obj, isObj := v.(map[string]any); isObj && len(obj) == 0 {
			return nil
		}
		p.fail(name, "must be an array of objects")
		return nil
	}
	out := make([]*params, len(list))
	for i, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			p.fail(fmt.Sprintf("%s[%d]", name, i), "must be an object")
			return nil
		}
		out[i] = &params{m: obj}
	}
	return out
}

// adopt takes the first error of a nested params, naming the field under prefix.
func (p *params) adopt(prefix string, sub *params) {
	var e *payport.Error
	if sub.err != nil && p.err == nil && errors.As(sub.err, &e) {
		p.err = &payport.Error{Kind: e.Kind, Message: prefix + e.Message}
	}
}
