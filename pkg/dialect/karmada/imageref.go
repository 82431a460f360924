package karmada

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The grammar of an image reference, as github.com/distribution/reference
// parses it (reference.Parse, without normalization: no docker.io/library
// is added); Karmada parses images with it (pkg/util/imageparser).
var (
	pathComponent = `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	domainName    = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*`
	domainAndPort = `(?:` + domainName + `|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?`
	nameGrammar   = `(?:` + domainAndPort + `/)?` + pathComponent + `(?:/` + pathComponent + `)*`
	tagGrammar    = `[\w][\w.-]{0,127}`
	digestGrammar = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`

	referenceRegexp = regexp.MustCompile(`^(` + nameGrammar + `)(?::(` + tagGrammar + `))?(?:@(` + digestGrammar + `))?$`)
	// anchoredTag and anchoredDigest decide what a new tag-or-digest value
	// is (pkg/util/imageparser/lifted.go).
	anchoredTag    = regexp.MustCompile(`^` + tagGrammar + `$`)
	anchoredDigest = regexp.MustCompile(`^` + digestGrammar + `$`)
)

// digestLengths are the hex lengths of the digest algorithms
// github.com/opencontainers/go-digest knows; other algorithms do not parse.
var digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

const nameTotalLengthMax = 255

// image is a parsed image reference in Karmada's components
// (pkg/util/imageparser/parser.go): the hostname is the first path
// segment only when it has a '.' or ':' or is "localhost".
type image struct {
	hostname, repository, tag, digest string
}

func parseImage(s string) (image, error) {
	m := referenceRegexp.FindStringSubmatch(s)
	if m == nil {
		if s == "" {
			return image{}, errors.New("repository name must have at least one component")
		}
		if referenceRegexp.MatchString(strings.ToLower(s)) {
			return image{}, errors.New("repository name must be lowercase")
		}
		return image{}, errors.New("invalid reference format")
	}
	name, tag, digest := m[1], m[2], m[3]
	if len(name) > nameTotalLengthMax {
		return image{}, fmt.Errorf("repository name must not be more than %v characters", nameTotalLengthMax)
	}
	if digest != "" {
		algo, hex, _ := strings.Cut(digest, ":")
		want, ok := digestLengths[algo]
		if !ok {
			return image{}, errors.New("unsupported digest algorithm")
		}
		if len(hex) != want || strings.ToLower(hex) != hex {
			return image{}, errors.New("invalid checksum digest format")
		}
	}
	img := image{tag: tag}
	if tag == "" {
		img.digest = digest // a tag hides the digest (Tagged is checked first)
	}
	img.hostname, img.repository = name, ""
	if i := strings.IndexByte(name, '/'); i >= 0 && (strings.ContainsAny(name[:i], ".:") || name[:i] == "localhost") {
		img.hostname, img.repository = name[:i], name[i+1:]
	} else {
		img.hostname, img.repository = "", name
	}
	return img, nil
}

func (i image) String() string {
	full := i.repository
	if i.hostname != "" {
		full = i.hostname + "/" + i.repository
	}
	switch {
	case i.tag != "":
		return full + ":" + i.tag
	case i.digest != "":
		return full + "@" + i.digest
	}
	return full
}

func (i image) tagOrDigest() string {
	if i.tag != "" {
		return i.tag
	}
	return i.digest
}

// setTagOrDigest takes a value that is a tag or a digest and clears the
// other; a value that is neither changes nothing, silently, as in Karmada.
func (i *image) setTagOrDigest(v string) {
	switch {
	case anchoredTag.MatchString(v):
		i.tag, i.digest = v, ""
	case anchoredDigest.MatchString(v):
		i.digest, i.tag = v, ""
	}
}

// override is Karmada's overrideImage
// (pkg/util/overridemanager/imageoverride.go).
func (i image) override(component, operator, value string) (string, error) {
	switch component {
	case "Registry":
		switch operator {
		case "add":
			i.hostname += value
		case "replace":
			i.hostname = value
		case "remove":
			i.hostname = ""
		}
	case "Repository":
		switch operator {
		case "add":
			i.repository += value
		case "replace":
			i.repository = value
		case "remove":
			i.repository = ""
		}
	case "Tag":
		switch operator {
		case "add":
			i.setTagOrDigest(i.tagOrDigest() + value)
		case "replace":
			i.setTagOrDigest(value)
		case "remove":
			if i.tag != "" {
				i.tag = ""
			} else {
				i.digest = ""
			}
		}
	default:
		return "", fmt.Errorf("unsupported image component(%s)", component)
	}
	return i.String(), nil
}
