// Prints, as JSON, every method with a body declared under a source directory with the callers
// javac's attribution resolves for it (the static callee of each method invocation): the enclosing
// method, or the enclosing class for field initializers and initializer blocks. Calls through an
// interface or abstract method resolve to that method (no body: not a declaration here).
//
//   java JavaCallers.java <root> <source dir relative to root> [extra source path, e.g. annotation stubs]
import com.sun.source.tree.*;
import com.sun.source.util.*;
import javax.lang.model.element.*;
import javax.tools.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;
import java.util.stream.*;

public class JavaCallers {
  record Caller(String path, String name, int line) {}
  static final class Decl {
    String path, name; int line, startLine, endLine;
    final LinkedHashMap<String, Caller> callers = new LinkedHashMap<>();
  }

  static Path root;
  static Trees trees;
  static final Map<Tree, Decl> declByTree = new IdentityHashMap<>();
  static final List<Decl> decls = new ArrayList<>();

  static String rel(CompilationUnitTree cu) {
    return root.relativize(Paths.get(cu.getSourceFile().toUri())).toString().replace(File.separatorChar, '/');
  }

  static int line(CompilationUnitTree cu, long pos) {
    return (int) cu.getLineMap().getLineNumber(pos);
  }

  /** Line of a declared name: the first `name` after the tree's start (past annotations and modifiers). */
  static int nameLine(CompilationUnitTree cu, Tree t, String name, String suffix) {
    long start = trees.getSourcePositions().getStartPosition(cu, t);
    try {
      String src = cu.getSourceFile().getCharContent(true).toString();
      Matcher m = Pattern.compile("\\b" + Pattern.quote(name) + suffix).matcher(src);
      if (m.find((int) start)) return line(cu, m.start());
    } catch (IOException e) {
      // fall back to the start line
    }
    return line(cu, start);
  }

  static String className(ClassTree c) {
    return c.getSimpleName().length() == 0 ? "(anonymous)" : c.getSimpleName().toString();
  }

  static String json(String s) {
    return s == null ? "null" : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public static void main(String[] args) throws Exception {
    root = Paths.get(args[0]).toAbsolutePath().normalize();
    Path src = root.resolve(args[1]);
    List<File> files;
    try (Stream<Path> s = Files.walk(src)) {
      files = s.filter(p -> p.toString().endsWith(".java") && !p.getFileName().toString().equals("module-info.java")).map(Path::toFile).sorted().collect(Collectors.toList());
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    int[] errors = {0};
    DiagnosticListener<JavaFileObject> diag = d -> { if (d.getKind() == Diagnostic.Kind.ERROR) errors[0]++; };
    StandardJavaFileManager fm = compiler.getStandardFileManager(diag, null, StandardCharsets.UTF_8);
    JavacTask task = (JavacTask) compiler.getTask(null, fm, diag, List.of("-proc:none", "-sourcepath", args.length > 2 ? src + File.pathSeparator + args[2] : src.toString()), null, fm.getJavaFileObjectsFromFiles(files));
    List<CompilationUnitTree> units = new ArrayList<>();
    task.parse().forEach(units::add);
    task.analyze();
    trees = Trees.instance(task);

    // Declarations first, so that every call can find its callee's record.
    for (CompilationUnitTree cu : units) {
      new TreePathScanner<Void, Void>() {
        @Override public Void visitMethod(MethodTree m, Void v) {
          Tree parent = getCurrentPath().getParentPath().getLeaf();
          if (m.getBody() != null && parent instanceof ClassTree c && !m.getName().contentEquals("<init>")) {
            Decl d = new Decl();
            d.path = rel(cu);
            d.name = className(c) + "." + m.getName();
            d.line = nameLine(cu, m, m.getName().toString(), "\\s*\\(");
            d.startLine = line(cu, trees.getSourcePositions().getStartPosition(cu, m));
            d.endLine = line(cu, trees.getSourcePositions().getEndPosition(cu, m));
            declByTree.put(m, d);
            decls.add(d);
          }
          return super.visitMethod(m, v);
        }
      }.scan(cu, null);
    }
    for (CompilationUnitTree cu : units) {
      new TreePathScanner<Void, Void>() {
        @Override public Void visitMethodInvocation(MethodInvocationTree call, Void v) {
          Element el = trees.getElement(getCurrentPath());
          if (el instanceof ExecutableElement) {
            Tree callee = trees.getTree(el);
            Decl d = callee == null ? null : declByTree.get(callee);
            if (d != null) {
              Caller from = enclosing(cu, getCurrentPath());
              d.callers.putIfAbsent(from.path() + ":" + from.line(), from);
            }
          }
          return super.visitMethodInvocation(call, v);
        }
      }.scan(cu, null);
    }
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < decls.size(); i++) {
      Decl d = decls.get(i);
      if (i > 0) out.append(",\n");
      out.append("{\"path\":").append(json(d.path)).append(",\"name\":").append(json(d.name)).append(",\"kind\":\"method\",\"line\":").append(d.line)
        .append(",\"startLine\":").append(d.startLine).append(",\"endLine\":").append(d.endLine).append(",\"callers\":[");
      List<Caller> cs = new ArrayList<>(d.callers.values());
      cs.sort(Comparator.comparing(Caller::path).thenComparingInt(Caller::line));
      for (int k = 0; k < cs.size(); k++) {
        Caller c = cs.get(k);
        if (k > 0) out.append(",");
        out.append("{\"path\":").append(json(c.path())).append(",\"name\":").append(json(c.name())).append(",\"line\":").append(c.line()).append("}");
      }
      out.append("]}");
    }
    out.append("]\n");
    System.out.print(out);
    System.err.println("javacallers: " + decls.size() + " declarations, " + errors[0] + " compile errors (missing optional dependencies)");
  }

  /** The innermost named method (lambdas and anonymous-class bodies belong to their enclosing method's caller chain only when unnamed), else the class. */
  static Caller enclosing(CompilationUnitTree cu, TreePath path) {
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (t instanceof MethodTree m && p.getParentPath() != null && p.getParentPath().getLeaf() instanceof ClassTree c) {
        // A constructor is named like its class (`Foo.Foo`), as Java spells it.
        String name = m.getName().contentEquals("<init>") ? className(c) + "." + className(c) : className(c) + "." + m.getName();
        String shown = m.getName().contentEquals("<init>") ? c.getSimpleName().toString() : m.getName().toString();
        return new Caller(rel(cu), name, nameLine(cu, m, shown, "\\s*\\("));
      }
      if (t instanceof ClassTree c && c.getSimpleName().length() > 0) {
        return new Caller(rel(cu), className(c), nameLine(cu, c, className(c), "\\b"));
      }
    }
    return new Caller(rel(cu), null, 0);
  }
}
