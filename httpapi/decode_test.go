package httpapi

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"
)

func TestDecodeForm_FoldsBracketedKeys(t *testing.T) {
	cases := []struct {
		query string
		want  string
	}{
		{"a=1", `{"a":"1"}`},
		{" a = 1 ", `{"a":"1"}`},
		{"a=1&a=2", `{"a":["1","2"]}`},
		{"a[]=1&a[]=2", `{"a":["1","2"]}`},
		{"a[0]=1&a[1]=2", `{"a":["1","2"]}`},
		{"a[1]=2&a[0]=1", `{"a":["1","2"]}`},
		{"a[2]=1", `{"a":{"2":"1"}}`},
		{"s[0][merchant_uid]=m1&s[0][amount]=100&s[1][merchant_uid]=m2", `{"s":[{"merchant_uid":"m1","amount":"100"},{"merchant_uid":"m2"}]}`},
		{"extra[requester]=customer", `{"extra":{"requester":"customer"}}`},
	}
	for _, c := range cases {
		v, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		p, err := decodeForm(v)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		var want map[string]any
		_ = json.Unmarshal([]byte(c.want), &want)
		if !reflect.DeepEqual(p.m, want) {
			got, _ := json.Marshal(p.m)
			t.Errorf("%s: got %s, want %s", c.query, got, c.want)
		}
	}
}

func TestDecodeForm_RejectsConflicts(t *testing.T) {
	for _, q := range []string{"a=1&a[b]=2", "a[b]=1&a[b]=2", "a]=1"} {
		v, _ := url.ParseQuery(q)
		if _, err := decodeForm(v); err == nil {
			t.Errorf("%s: accepted", q)
		}
	}
}

func TestParams_Accessors(t *testing.T) {
	p, err := decodeJSON([]byte(`{"s":"x","n":12,"d":"10.50","b":true,"o":{"k":[1,"two"]},"l":["a","b"],"bad":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.str("s") != "x" || p.str("n") != "12" || p.decimal("d") != "10.50" || *p.int("n") != 12 || p.str("missing") != "" {
		t.Fatalf("accessors: %+v", p)
	}
	if got := p.jsonText("o"); got != `{"k":[1,"two"]}` {
		t.Fatalf("jsonText = %s", got)
	}
	if got := p.strs("l"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("strs = %v", got)
	}
	if p.err != nil {
		t.Fatalf("unexpected error %v", p.err)
	}
	p.strs("bad")
	p.str("b") // a later failure does not replace the first
	if p.err == nil || p.err.Error() != "bad: must be an array of strings" {
		t.Fatalf("first error = %v", p.err)
	}
}
