// Command gocallers prints, as JSON, every function and method declared in a Go module with the
// callers go/types resolves for it: the enclosing function or method of each call, or the file for
// package-level code. Interface method calls resolve to the interface method (not a declaration
// here); conversions resolve to a type name and are not calls.
//
//	go run . <module root>
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type caller struct {
	Path string  `json:"path"`
	Name *string `json:"name"`
	Line int     `json:"line"`
}

type declaration struct {
	Path      string   `json:"path"`
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Line      int      `json:"line"`
	StartLine int      `json:"startLine"`
	EndLine   int      `json:"endLine"`
	Callers   []caller `json:"callers"`
}

// unit is one type-checked package: a directory's files of one package clause.
type unit struct {
	dir   string
	name  string
	files []*ast.File
}

var (
	root       string
	modulePath string
	fset       = token.NewFileSet()
	std        = importer.ForCompiler(fset, "source", nil)
	checked    = map[string]*types.Package{}
	units      = map[string][]*unit{}
	typeErrors = 0
)

// workspaceImporter type-checks workspace packages from source (their non-test files) and leaves
// the standard library to the source importer.
type workspaceImporter struct{}

func (workspaceImporter) Import(p string) (*types.Package, error) {
	if p == modulePath || strings.HasPrefix(p, modulePath+"/") {
		if pkg, ok := checked[p]; ok {
			return pkg, nil
		}
		dir := filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/"))
		for _, u := range units[dir] {
			if !strings.HasSuffix(u.name, "_test") {
				var files []*ast.File
				for _, f := range u.files {
					if !strings.HasSuffix(fset.File(f.Pos()).Name(), "_test.go") {
						files = append(files, f)
					}
				}
				pkg, err := (&types.Config{Importer: workspaceImporter{}, Error: func(error) {}}).Check(p, fset, files, nil)
				checked[p] = pkg
				return pkg, err
			}
		}
		return nil, fmt.Errorf("package %s not found", p)
	}
	return std.Import(p)
}

func rel(pos token.Pos) (string, int) {
	p := fset.Position(pos)
	r, _ := filepath.Rel(root, p.Filename)
	return filepath.ToSlash(r), p.Line
}

func recvName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

func main() {
	root, _ = filepath.Abs(os.Args[1])
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(string(gomod), "\n") {
		if strings.HasPrefix(line, "module ") {
			modulePath = strings.TrimSpace(strings.TrimPrefix(line, "module "))
		}
	}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if info.IsDir() {
			base := info.Name()
			if p != root && (strings.HasPrefix(base, ".") || base == "vendor" || base == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return nil
		}
		dir := filepath.Dir(p)
		var u *unit
		for _, x := range units[dir] {
			if x.name == f.Name.Name {
				u = x
			}
		}
		if u == nil {
			u = &unit{dir: dir, name: f.Name.Name}
			units[dir] = append(units[dir], u)
		}
		u.files = append(u.files, f)
		return nil
	})

	decls := map[token.Pos]*declaration{}
	var order []*declaration
	type edge struct {
		callee token.Pos
		from   caller
	}
	var edges []edge
	dirs := make([]string, 0, len(units))
	for d := range units {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		for _, u := range units[dir] {
			info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
			importPath := modulePath
			if r, _ := filepath.Rel(root, dir); r != "." {
				importPath = modulePath + "/" + filepath.ToSlash(r)
			}
			(&types.Config{Importer: workspaceImporter{}, Error: func(err error) {
				typeErrors++
				if typeErrors <= 5 {
					fmt.Fprintln(os.Stderr, "type error:", err)
				}
			}}).Check(importPath, fset, u.files, info)
			for _, f := range u.files {
				for _, d := range f.Decls {
					fd, ok := d.(*ast.FuncDecl)
					if ok && fd.Body != nil {
						path, line := rel(fd.Name.Pos())
						_, start := rel(fd.Pos())
						_, end := rel(fd.End())
						name, kind := fd.Name.Name, "function"
						if r := recvName(fd); r != "" {
							name, kind = r+"."+name, "method"
						}
						decl := &declaration{Path: path, Name: name, Kind: kind, Line: line, StartLine: start, EndLine: end, Callers: []caller{}}
						// Declarations are keyed by the position of their defining object, which both the
						// in-package and the imported (re-checked) views of a package share.
						decls[fd.Name.Pos()] = decl
						order = append(order, decl)
					}
					var from caller
					if ok {
						path, line := rel(fd.Name.Pos())
						name := fd.Name.Name
						if r := recvName(fd); r != "" {
							name = r + "." + name
						}
						from = caller{Path: path, Name: &name, Line: line}
					} else {
						path, _ := rel(f.Pos())
						from = caller{Path: path, Name: nil, Line: 0}
					}
					ast.Inspect(d, func(n ast.Node) bool {
						call, isCall := n.(*ast.CallExpr)
						if !isCall {
							return true
						}
						fun := call.Fun
						for {
							switch x := fun.(type) {
							case *ast.ParenExpr:
								fun = x.X
								continue
							case *ast.IndexExpr:
								fun = x.X
								continue
							case *ast.IndexListExpr:
								fun = x.X
								continue
							}
							break
						}
						var id *ast.Ident
						switch x := fun.(type) {
						case *ast.Ident:
							id = x
						case *ast.SelectorExpr:
							id = x.Sel
						}
						if id == nil {
							return true
						}
						if fn, isFunc := info.Uses[id].(*types.Func); isFunc {
							edges = append(edges, edge{callee: fn.Pos(), from: from})
						}
						return true
					})
				}
			}
		}
	}
	for _, e := range edges {
		d, ok := decls[e.callee]
		if !ok {
			continue
		}
		dup := false
		for _, c := range d.Callers {
			if c.Path == e.from.Path && c.Line == e.from.Line {
				dup = true
			}
		}
		if !dup {
			d.Callers = append(d.Callers, e.from)
		}
	}
	for _, d := range order {
		sort.Slice(d.Callers, func(i, j int) bool {
			a, b := d.Callers[i], d.Callers[j]
			return a.Path < b.Path || a.Path == b.Path && a.Line < b.Line
		})
	}
	fmt.Fprintf(os.Stderr, "gocallers: %d declarations, %d type errors\n", len(order), typeErrors)
	out := json.NewEncoder(os.Stdout)
	out.Encode(order)
}
