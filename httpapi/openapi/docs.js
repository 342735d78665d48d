// A small renderer of payport's OpenAPI document: operations grouped by tag
// with method, path, summary, parameters, request body and responses, then
// the component schemas. No dependencies; every text goes through esc().
(function () {
  'use strict';

  var METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
  var doc = null;

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }

  function slug(s) {
    return String(s).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  }

  // ---- a little Markdown: paragraphs, lists, tables, headings, code, bold, links.
  function inline(s) {
    var parts = String(s).split('`');
    return parts.map(function (p, i) {
      if (i % 2 === 1) return '<code>' + esc(p) + '</code>';
      var t = esc(p);
      t = t.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
      t = t.replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, function (_, text, url) {
        return '<a href="' + url + '" rel="noopener noreferrer" target="_blank">' + text + '</a>';
      });
      return t;
    }).join('');
  }

  function md(text) {
    if (!text) return '';
    var lines = String(text).split('\n');
    var out = [];
    var i = 0;
    function cells(line) {
      return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map(function (c) { return c.trim(); });
    }
    while (i < lines.length) {
      var line = lines[i];
      if (/^\s*$/.test(line)) { i++; continue; }
      var h = /^(#{1,4})\s+(.*)$/.exec(line);
      if (h) {
        var level = Math.min(h[1].length + 1, 5);
        out.push('<h' + level + '>' + inline(h[2]) + '</h' + level + '>');
        i++;
        continue;
      }
      if (/^\s*\|/.test(line) && i + 1 < lines.length && /^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1])) {
        var head = cells(line);
        i += 2;
        var rows = [];
        while (i < lines.length && /^\s*\|/.test(lines[i])) { rows.push(cells(lines[i])); i++; }
        out.push('<table><thead><tr>' + head.map(function (c) { return '<th>' + inline(c) + '</th>'; }).join('') +
          '</tr></thead><tbody>' + rows.map(function (r) {
            return '<tr>' + r.map(function (c) { return '<td>' + inline(c) + '</td>'; }).join('') + '</tr>';
          }).join('') + '</tbody></table>');
        continue;
      }
      if (/^\s*[-*]\s+/.test(line)) {
        var items = [];
        while (i < lines.length && /^\s*[-*]\s+/.test(lines[i])) {
          var item = lines[i].replace(/^\s*[-*]\s+/, '');
          i++;
          while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*[-*]\s+/.test(lines[i])) { item += ' ' + lines[i].trim(); i++; }
          items.push('<li>' + inline(item) + '</li>');
        }
        out.push('<ul>' + items.join('') + '</ul>');
        continue;
      }
      var para = [line];
      i++;
      while (i < lines.length && !/^\s*$/.test(lines[i]) && !/^(#{1,4})\s/.test(lines[i]) && !/^\s*[-*]\s+/.test(lines[i]) && !/^\s*\|/.test(lines[i])) {
        para.push(lines[i]);
        i++;
      }
      out.push('<p>' + para.map(inline).join('<br>') + '</p>');
    }
    return out.join('\n');
  }

  // Descriptions carry payport's text, then "PortOne: …" (the official
  // document's Korean text); the latter is shown smaller.
  function describe(text) {
    if (!text) return '';
    var k = text.indexOf('PortOne: ');
    if (k < 0) return md(text);
    var own = text.slice(0, k).trim();
    var ko = text.slice(k + 9).trim();
    return md(own) + '<div class="ko">' + md('PortOne: ' + ko) + '</div>';
  }

  // ---- references and schema types
  function refName(ref) { return ref.replace(/^#\/components\/[^/]+\//, ''); }

  function resolve(obj) {
    var seen = 0;
    while (obj && obj.$ref && seen++ < 20) {
      var parts = obj.$ref.replace(/^#\//, '').split('/');
      var cur = doc;
      for (var i = 0; i < parts.length && cur; i++) cur = cur[parts[i].replace(/~1/g, '/').replace(/~0/g, '~')];
      obj = cur;
    }
    return obj || {};
  }

  function schemaLink(ref) {
    var n = refName(ref);
    return '<a class="type" href="#schema-' + slug(n) + '">' + esc(n) + '</a>';
  }

  function typeOf(s) {
    if (!s) return '<span class="type">any</span>';
    if (s.$ref) return schemaLink(s.$ref);
    var alts = s.oneOf || s.anyOf;
    if (alts) return alts.map(typeOf).join(' <span class="small">or</span> ');
    if (s.allOf) return s.allOf.map(typeOf).join(' <span class="small">and</span> ');
    var t;
    if (s.type === 'array') t = '<span class="type">array of</span> ' + typeOf(s.items);
    else if (s.type) t = '<span class="type">' + esc(s.type) + (s.format ? ' (' + esc(s.format) + ')' : '') + '</span>';
    else t = '<span class="type">any</span>';
    if (s.nullable) t += ' <span class="type">| null</span>';
    return t;
  }

  function constraints(s) {
    if (!s || s.$ref) return '';
    var c = [];
    var alts = s.oneOf || s.anyOf;
    if (alts) alts.forEach(function (a) { var x = constraints(a); if (x) c.push(x); });
    if (s.enum) c.push('one of ' + s.enum.map(function (v) { return '<code>' + esc(JSON.stringify(v)) + '</code>'; }).join(' '));
    if (s.default !== undefined) c.push('default <code>' + esc(JSON.stringify(s.default)) + '</code>');
    if (s.pattern) c.push('pattern <code>' + esc(s.pattern) + '</code>');
    if (s.minLength !== undefined) c.push('min length ' + s.minLength);
    if (s.maxLength !== undefined) c.push('max length ' + s.maxLength);
    if (s.minimum !== undefined) c.push((s.exclusiveMinimum ? '> ' : '≥ ') + s.minimum);
    if (s.maximum !== undefined) c.push((s.exclusiveMaximum ? '< ' : '≤ ') + s.maximum);
    if (s.minItems !== undefined) c.push('min items ' + s.minItems);
    if (s.maxItems !== undefined) c.push('max items ' + s.maxItems);
    if (s.additionalProperties === false) c.push('no other properties');
    return c.join('; ');
  }

  // propertyRows renders the properties of an object schema, expanding
  // inline (non-$ref) nested objects and arrays of them.
  function propertyRows(s, prefix, depth) {
    s = s || {};
    if (s.$ref) s = resolve(s);
    var props = s.properties || {};
    var req = s.required || [];
    var rows = '';
    Object.keys(props).forEach(function (name) {
      var p = props[name];
      var cons = constraints(p);
      rows += '<tr><td class="name"><span class="nest">' + esc(prefix) + '</span>' + esc(name) +
        (req.indexOf(name) >= 0 ? '<span class="req" title="required">*</span>' : '') + '</td><td>' + typeOf(p) +
        '</td><td>' + describe(p.description) + (cons ? '<div class="small">' + cons + '</div>' : '') + '</td></tr>';
      if (depth < 3 && !p.$ref) {
        if (p.type === 'object' && p.properties) rows += propertyRows(p, prefix + name + '.', depth + 1);
        else if (p.type === 'array' && p.items && !p.items.$ref && p.items.properties) rows += propertyRows(p.items, prefix + name + '[].', depth + 1);
      }
    });
    return rows;
  }

  function schemaBlock(s, depth) {
    depth = depth || 0;
    if (!s) return '';
    var target = s.$ref ? resolve(s) : s;
    var html = '<div class="small">Schema: ' + typeOf(s) + (s.$ref && target.description ? ' — ' + inline(firstSentence(target.description)) : '') + '</div>';
    var rows = propertyRows(target, '', 0);
    if (rows) html += '<table class="grid"><thead><tr><th>Field</th><th>Type</th><th>Description</th></tr></thead><tbody>' + rows + '</tbody></table>';
    else if ((target.oneOf || target.anyOf) && depth < 1) {
      (target.oneOf || target.anyOf).forEach(function (alt) { html += schemaBlock(alt, depth + 1); });
    } else {
      var cons = constraints(target);
      if (cons) html += '<div class="small">' + cons + '</div>';
    }
    return html;
  }

  function firstSentence(t) {
    var s = String(t).split('\n')[0];
    return s.length > 220 ? s.slice(0, 217) + '…' : s;
  }

  function examplesBlock(media) {
    var html = '';
    var exs = media.examples || {};
    Object.keys(exs).forEach(function (k) {
      var e = resolve(exs[k]);
      html += '<div class="exname">Example: ' + esc(e.summary || k) + '</div><pre><code>' + esc(JSON.stringify(e.value, null, 2)) + '</code></pre>';
    });
    if (media.example !== undefined) html += '<div class="exname">Example</div><pre><code>' + esc(JSON.stringify(media.example, null, 2)) + '</code></pre>';
    return html;
  }

  function contentBlock(content) {
    var html = '';
    Object.keys(content || {}).forEach(function (ct) {
      var media = content[ct];
      html += '<div class="ctype">' + esc(ct) + '</div>' + schemaBlock(media.schema) + examplesBlock(media);
      if (media.encoding) {
        html += '<div class="small">Encoding: ' + Object.keys(media.encoding).map(function (k) {
          return '<code>' + esc(k) + '</code> ' + esc(media.encoding[k].style || '');
        }).join(', ') + '</div>';
      }
    });
    return html;
  }

  function securityText(op) {
    var sec = op.security !== undefined ? op.security : doc.security;
    if (!sec || sec.length === 0) return '<span class="badge open">no token</span>';
    var schemes = (doc.components && doc.components.securitySchemes) || {};
    return 'Any of: ' + sec.map(function (req) {
      return Object.keys(req).map(function (n) {
        var s = schemes[n] || {};
        var how = s.type === 'http' ? 'Authorization: ' + (s.scheme === 'bearer' ? 'Bearer ' : '') + '<token>' : (s.name || n) + ': <token>';
        return '<code>' + esc(how) + '</code>';
      }).join(' + ');
    }).join(' · ');
  }

  function paramsTable(params) {
    if (!params.length) return '';
    return '<h4>Parameters</h4><table class="grid"><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>' +
      params.map(function (p) {
        var cons = constraints(p.schema);
        return '<tr><td class="name">' + esc(p.name) + (p.required ? '<span class="req" title="required">*</span>' : '') + '</td><td>' + esc(p.in) +
          '</td><td>' + typeOf(p.schema) + '</td><td>' + describe(p.description) + (cons ? '<div class="small">' + cons + '</div>' : '') + '</td></tr>';
      }).join('') + '</tbody></table>';
  }

  function statusClass(code) { return 's' + String(code).charAt(0); }

  function operation(path, method, op, pathParams) {
    var id = 'op-' + slug(method + ' ' + path);
    var params = (pathParams || []).concat(op.parameters || []).map(resolve);
    var html = '<details class="op' + (op.deprecated ? ' deprecated' : '') + '" id="' + id + '"><summary>' +
      '<span class="method m-' + method + '">' + method + '</span><span class="path">' + esc(path) + '</span>' +
      '<span class="sum">' + esc(op.summary || '') + '</span>' +
      (op.deprecated ? '<span class="badge dep">deprecated</span>' : '') + '</summary><div class="opbody">';
    html += '<div class="opid">operationId <code>' + esc(op.operationId || '') + '</code> · ' + securityText(op) + '</div>';
    html += '<div class="md">' + describe(op.description) + '</div>';
    html += paramsTable(params);
    if (op.requestBody) {
      var rb = resolve(op.requestBody);
      html += '<h4>Request body' + (rb.required ? ' (required)' : '') + '</h4>' + (rb.description ? '<div class="md small">' + md(rb.description) + '</div>' : '') + contentBlock(rb.content);
    }
    html += '<h4>Responses</h4>';
    Object.keys(op.responses || {}).sort().forEach(function (code) {
      var r = resolve(op.responses[code]);
      html += '<div class="resp"><span class="status ' + statusClass(code) + '">' + esc(code) + '</span> ' + inline(r.description || '');
      var hs = r.headers || {};
      var hnames = Object.keys(hs);
      if (hnames.length) html += '<div class="small">Headers: ' + hnames.map(function (h) { return '<code>' + esc(h) + '</code>'; }).join(' ') + '</div>';
      html += contentBlock(r.content) + '</div>';
    });
    return html + '</div></details>';
  }

  function render() {
    var info = doc.info || {};
    document.title = (info.title || 'API') + ' — reference';
    document.getElementById('meta').textContent = (info.title || '') + ' · version ' + (info.version || '?') + ' · OpenAPI ' + (doc.openapi || '?');

    var byTag = {};
    var tagOrder = (doc.tags || []).map(function (t) { return t.name; });
    Object.keys(doc.paths || {}).forEach(function (path) {
      var item = doc.paths[path];
      METHODS.forEach(function (m) {
        if (!item[m]) return;
        var tag = (item[m].tags && item[m].tags[0]) || 'other';
        if (tagOrder.indexOf(tag) < 0) tagOrder.push(tag);
        (byTag[tag] = byTag[tag] || []).push({ path: path, method: m, op: item[m], params: item.parameters });
      });
    });

    // The description's first paragraphs introduce; its sections (from the
    // first heading on) fold into an "Overview" box.
    var desc = info.description || '';
    var cut = desc.search(/^## /m);
    var lead = cut < 0 ? desc : desc.slice(0, cut);
    var rest = cut < 0 ? '' : desc.slice(cut);
    var main = '<h1>' + esc(info.title || '') + '</h1><div class="md">' + md(lead) + '</div>' +
      (rest ? '<details class="intro"><summary>Overview: ' + esc((rest.match(/^## .*$/gm) || []).map(function (h) {
        return h.slice(3).replace(/\s*\(.*\)$/, '');
      }).join(' · ')) + '</summary><div class="md">' + md(rest) + '</div></details>' : '');
    var nav = '';
    tagOrder.forEach(function (tag) {
      var ops = byTag[tag];
      if (!ops) return;
      var t = (doc.tags || []).filter(function (x) { return x.name === tag; })[0] || {};
      main += '<h2 class="tag" id="tag-' + slug(tag) + '">' + esc(tag) + '</h2><div class="tagdesc md">' + md(t.description || '') + '</div>';
      nav += '<h4><a href="#tag-' + slug(tag) + '">' + esc(tag) + '</a></h4>';
      ops.forEach(function (o) {
        main += operation(o.path, o.method, o.op, o.params);
        nav += '<a class="op' + (o.op.deprecated ? ' dep' : '') + '" href="#op-' + slug(o.method + ' ' + o.path) + '" data-text="' +
          esc((o.method + ' ' + o.path + ' ' + (o.op.summary || '') + ' ' + tag).toLowerCase()) + '"><span class="method m-' + o.method + '">' + o.method +
          '</span><span class="p">' + esc(o.path) + '</span></a>';
      });
    });

    var schemas = (doc.components && doc.components.schemas) || {};
    main += '<h2 class="tag" id="schemas">Schemas</h2>';
    nav += '<h4><a href="#schemas">Schemas</a></h4>';
    Object.keys(schemas).forEach(function (name) {
      var s = schemas[name];
      var cons = constraints(s);
      main += '<div class="schema-card" id="schema-' + slug(name) + '"><h3>' + esc(name) + '</h3><div class="md">' + describe(s.description) + '</div>' +
        '<div class="small">' + typeOf(s.properties ? { type: s.type } : s) + (cons ? ' · ' + cons : '') + '</div>';
      var rows = propertyRows(s, '', 0);
      if (rows) main += '<table class="grid"><thead><tr><th>Field</th><th>Type</th><th>Description</th></tr></thead><tbody>' + rows + '</tbody></table>';
      main += '</div>';
      nav += '<a class="op" href="#schema-' + slug(name) + '" data-text="' + esc(name.toLowerCase()) + '"><span class="p">' + esc(name) + '</span></a>';
    });

    document.getElementById('main').innerHTML = main;
    document.getElementById('navlist').innerHTML = nav;
    openFromHash();
  }

  function openFromHash() {
    var id = decodeURIComponent(location.hash.replace(/^#/, ''));
    if (!id) return;
    var el = document.getElementById(id);
    if (el && el.tagName === 'DETAILS') el.open = true;
    if (el) el.scrollIntoView();
  }

  document.getElementById('filter').addEventListener('input', function (e) {
    var q = e.target.value.trim().toLowerCase();
    var links = document.querySelectorAll('#navlist a.op');
    for (var i = 0; i < links.length; i++) {
      var hit = !q || links[i].getAttribute('data-text').indexOf(q) >= 0;
      links[i].classList.toggle('hidden', !hit);
      var target = document.getElementById(links[i].getAttribute('href').slice(1));
      if (target) target.classList.toggle('hidden', !hit);
    }
  });
  window.addEventListener('hashchange', openFromHash);

  // The document sits next to this page: /docs → /openapi.json, also behind
  // a path prefix and with a trailing slash.
  var url = location.pathname.replace(/\/docs\/?$/, '/') + 'openapi.json';
  document.getElementById('raw').setAttribute('href', url);
  fetch(url, { headers: { Accept: 'application/json' } }).then(function (r) {
    if (!r.ok) throw new Error('GET ' + url + ': HTTP ' + r.status);
    return r.json();
  }).then(function (d) {
    doc = d;
    render();
  }).catch(function (err) {
    document.getElementById('main').innerHTML = '<p class="loading">Could not load the document: ' + esc(err.message) + '</p>';
  });
})();
