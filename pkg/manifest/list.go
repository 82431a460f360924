package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// expandList turns a list document (kind List, which kubectl get -o yaml
// prints for several objects, or any kind ending in List with items, as
// kubectl reads them) into one document per item. Each item is its own
// bytes of the input, cut out and unindented, so that every field keeps its
// line: an error in the third item of a List points at the line in the
// file. An item that cannot be cut out (a flow item of YAML, or one whose
// aliases name anchors outside it) is written out again from the parsed
// YAML, its aliases resolved: it keeps its first line only. Any other
// document is returned as it is.
func expandList(d Document) ([]Document, error) {
	if !bytes.Contains(d.Data, []byte("List")) { // cheap pre-check: most documents are not lists
		return []Document{d}, nil
	}
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(d.Data, &root); err != nil || len(root.Content) == 0 {
		return []Document{d}, nil // DecodeStrict reports syntax errors with their line
	}
	top := root.Content[0]
	if top.Kind != yamlv3.MappingNode {
		return []Document{d}, nil
	}
	var kind string
	var items *yamlv3.Node
	itemsLine := 0 // of the items key
	end := 0       // the first line after items: the next key of the list, if any
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch k := top.Content[i]; k.Value {
		case "kind":
			kind = top.Content[i+1].Value
		case "items":
			items, itemsLine = top.Content[i+1], k.Line
		}
	}
	if !strings.HasSuffix(kind, "List") || items == nil {
		return []Document{d}, nil
	}
	if items.Kind != yamlv3.SequenceNode {
		return nil, &Error{File: d.File, Line: d.Line + itemsLine - 1, Field: "items", Err: errors.New("must be a list")}
	}
	if len(items.Content) == 0 {
		return nil, nil
	}
	if !boundedAliases(items) {
		// followed, they would never end, or end a billion nodes later
		return nil, &Error{File: d.File, Line: d.Line + itemsLine - 1, Field: "items",
			Err: fmt.Errorf("an anchor holds an alias of itself, or aliases stand for more than %d times the nodes written; write the items out", maxExpansion)}
	}
	last := items.Content[len(items.Content)-1].Line
	for i := 0; i < len(top.Content); i += 2 {
		if l := top.Content[i].Line; l > last && (end == 0 || l < end) {
			end = l
		}
	}
	var spans [][2]int
	if items.Style&yamlv3.FlowStyle != 0 {
		spans = jsonItems(d.Data, len(items.Content))
	}
	lines := bytes.SplitAfter(d.Data, []byte("\n"))
	out := make([]Document, 0, len(items.Content))
	counted, newlines := 0, 0 // newlines in d.Data[:counted], counted on from item to item
	for i, item := range items.Content {
		line := d.Line + item.Line - 1
		var data []byte
		switch {
		case spans != nil:
			data = d.Data[spans[i][0]:spans[i][1]]
			newlines += bytes.Count(d.Data[counted:spans[i][0]], []byte("\n"))
			counted = spans[i][0]
			line = d.Line + newlines
		case items.Style&yamlv3.FlowStyle == 0 && selfContained(item):
			next := len(lines) + 1
			if i+1 < len(items.Content) {
				next = items.Content[i+1].Line
			} else if end > 0 {
				next = end
			}
			data = cutItem(lines, item, next)
		}
		if data == nil {
			var err error
			if data, err = yamlv3.Marshal(resolved(item)); err != nil {
				return nil, &Error{File: d.File, Line: line, Err: err}
			}
		}
		out = append(out, Document{File: d.File, Line: line, Data: data, Kustomization: d.Kustomization})
	}
	return out, nil
}

// cutItem is the text of item, an entry of a block sequence, from its
// first line to the line before next, unindented; nil when its first line
// holds more than the entry's dash before it (an anchor or a tag), so
// that the caller writes it out instead.
func cutItem(lines [][]byte, item *yamlv3.Node, next int) []byte {
	from, to := item.Line-1, min(next-1, len(lines))
	indent := item.Column - 1
	if from < 0 || from >= to || len(lines[from]) < indent {
		return nil
	}
	prefix := lines[from][:indent]
	if len(bytes.Trim(prefix, " -")) > 0 || bytes.Count(prefix, []byte("-")) > 1 {
		return nil
	}
	var b bytes.Buffer
	b.Write(lines[from][indent:])
	for _, l := range lines[from+1 : to] {
		n := 0
		for n < indent && n < len(l) && l[n] == ' ' {
			n++
		}
		if rest := bytes.TrimSpace(l[n:]); n < indent && len(rest) > 0 && rest[0] != '#' {
			break // the next entry's lone dash, or the list's next key
		}
		b.Write(l[n:]) // less indented: a comment or a blank line
	}
	// What was cut out must read as the entry did: a multi-line scalar
	// less indented than its mapping, say, is written out instead.
	var cut yamlv3.Node
	if yamlv3.Unmarshal(b.Bytes(), &cut) != nil || len(cut.Content) != 1 || !sameNode(cut.Content[0], item) {
		return nil
	}
	return b.Bytes()
}

// sameNode says whether a and b hold the same YAML: the same kinds, the
// same scalars with the same resolved tags, in the same order.
func sameNode(a, b *yamlv3.Node) bool {
	for a.Kind == yamlv3.AliasNode && a.Alias != nil {
		a = a.Alias
	}
	for b.Kind == yamlv3.AliasNode && b.Alias != nil {
		b = b.Alias
	}
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Kind == yamlv3.ScalarNode && a.ShortTag() != b.ShortTag() {
		return false
	}
	if a.Kind == yamlv3.ScalarNode && a.Value != b.Value && a.ShortTag() != "!!null" { // "", ~ and null are one null
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// selfContained says whether item is a block mapping whose aliases all
// name anchors inside it, so that its own text, cut out, means the same.
func selfContained(item *yamlv3.Node) bool {
	if item.Kind != yamlv3.MappingNode || item.Style&yamlv3.FlowStyle != 0 || item.Anchor != "" {
		return false
	}
	if !hasAlias(item) {
		return true // the usual item: nothing to look up
	}
	inside := map[*yamlv3.Node]bool{}
	var aliases []*yamlv3.Node
	var walk func(*yamlv3.Node)
	walk = func(n *yamlv3.Node) {
		inside[n] = true
		if n.Kind == yamlv3.AliasNode {
			aliases = append(aliases, n)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(item)
	for _, a := range aliases {
		if !inside[a.Alias] {
			return false
		}
	}
	return true
}

// maxExpansion bounds the nodes a list's items stand for once their
// aliases are followed, against the nodes written: kubectl's own reader
// (yaml.v3) refuses far less.
const maxExpansion = 10

// boundedAliases says whether following n's aliases ends, and stands for
// no more than maxExpansion times n's own nodes (at least 10,000): what
// resolved and sameNode walk.
func boundedAliases(n *yamlv3.Node) bool {
	if !hasAlias(n) {
		return true // without aliases, nothing is followed twice
	}
	size := map[*yamlv3.Node]int{}
	visiting := map[*yamlv3.Node]bool{}
	written := 0
	const unbounded = -1
	var walk func(*yamlv3.Node) int
	walk = func(n *yamlv3.Node) int {
		if s, ok := size[n]; ok {
			return s
		}
		if visiting[n] {
			return unbounded // an anchor that holds itself
		}
		visiting[n] = true
		defer delete(visiting, n)
		written++
		s := 1
		children := n.Content
		if n.Kind == yamlv3.AliasNode && n.Alias != nil {
			children = []*yamlv3.Node{n.Alias}
		}
		for _, c := range children {
			cs := walk(c)
			if cs == unbounded || s+cs > 1<<30 {
				return unbounded
			}
			s += cs
		}
		size[n] = s
		return s
	}
	total := walk(n)
	return total != unbounded && total <= max(10_000, maxExpansion*written)
}

// hasAlias says whether n holds an alias, without following any.
func hasAlias(n *yamlv3.Node) bool {
	if n.Kind == yamlv3.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// resolved is n with every alias replaced by a copy of what it names, so
// that it can be written out alone (boundedAliases has checked that this
// ends, and how far).
func resolved(n *yamlv3.Node) *yamlv3.Node {
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		return resolved(n.Alias)
	}
	c := *n
	c.Anchor = ""
	if c.Kind == yamlv3.ScalarNode && c.Value == "" && c.ShortTag() == "!!null" {
		c.Value = "null" // written out as '' otherwise: a string
	}
	if len(n.Content) > 0 {
		c.Content = make([]*yamlv3.Node, len(n.Content))
		for i, child := range n.Content {
			c.Content[i] = resolved(child)
		}
	}
	return &c
}

// jsonItems are the byte ranges in data, a JSON object, of the want
// elements of its "items" array; nil when data is not such JSON (flow YAML
// that JSON does not read).
func jsonItems(data []byte, want int) [][2]int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var spans [][2]int
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "items" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		spans = spans[:0] // the last items key counts, as for the YAML reader
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return nil
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil
			}
			end := int(dec.InputOffset())
			spans = append(spans, [2]int{end - len(raw), end})
		}
		if _, err := dec.Token(); err != nil {
			return nil
		}
	}
	if len(spans) != want {
		return nil
	}
	return spans
}
