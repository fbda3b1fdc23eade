/**
 * Names that belong to a language's builtin and standard types and functions. A call on a receiver
 * of unknown type whose method is named like one of these is never matched by name to a workspace
 * method (`d.update()` on a dict is not `ProgressBar.update`), and a bare call to a builtin function
 * that the file neither defines nor imports is not linked to a workspace function of that name.
 */
import type { Language } from './extraction.ts';

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

/** Python dict/list/str/set/bytes/file/io/logging/re/threading/asyncio methods. */
const PYTHON_METHODS = words(`
  append extend insert remove pop clear index count sort reverse copy
  get items keys values update setdefault popitem fromkeys
  add discard difference intersection union symmetric_difference issubset issuperset isdisjoint
  join split rsplit splitlines strip lstrip rstrip replace format format_map startswith endswith find rfind
  lower upper title capitalize casefold swapcase encode decode partition rpartition center ljust rjust zfill
  isdigit isalpha isalnum isspace islower isupper isidentifier expandtabs translate maketrans removeprefix removesuffix
  read readline readlines write writelines close flush seek tell truncate fileno isatty open
  search match fullmatch findall finditer sub subn group groups groupdict start end span compile
  debug info warning warn error exception critical log
  acquire release wait notify notify_all set is_set put get_nowait put_nowait task_done qsize empty full
  send throw cancel cancelled done result add_done_callback run submit shutdown map
  exists is_file is_dir mkdir iterdir glob rglob resolve unlink rename touch read_text write_text read_bytes write_bytes
  hex total_seconds isoformat strftime timestamp to_bytes from_bytes bit_length
`);

/** JavaScript/TypeScript Array, String, Map, Set, Promise, AbortController, EventTarget, stream, console, JSON, Object methods. */
const SCRIPT_METHODS = words(`
  push pop shift unshift splice slice concat join reverse sort indexOf lastIndexOf includes find findIndex findLast
  filter map reduce reduceRight forEach some every flat flatMap fill keys values entries at copyWithin toSorted toReversed
  charAt charCodeAt codePointAt split substring substr toLowerCase toUpperCase trim trimStart trimEnd padStart padEnd
  startsWith endsWith replace replaceAll match matchAll search repeat localeCompare normalize toString toFixed valueOf
  get set has delete clear add size
  then catch finally resolve reject all allSettled race any
  abort addEventListener removeEventListener dispatchEvent
  write end on once off emit pipe read destroy pause resume close open send removeListener removeAllListeners listeners
  log warn error info debug trace assert time timeEnd
  stringify parse assign freeze create defineProperty getOwnPropertyNames hasOwnProperty
  test exec bind call apply next return throw
  json text blob arrayBuffer formData clone append getAll
`);

/** Go standard library methods met on values of unknown type. */
const GO_METHODS = words(`
  Error String Close Read Write ReadFrom WriteTo Flush Seek Len Cap Reset Bytes Lock Unlock RLock RUnlock
  Wait Add Done Do Load Store Swap Delete Range Get Set Del Header WriteHeader Write Context Value Deadline Err
  Scan Next Text Encode Decode Marshal Unmarshal Sprintf Printf Println Errorf Fatal Fatalf Log Logf Helper Run
  Parallel Cleanup Skip Skipf Fail FailNow Errorf Equal Sub Before After Unix Format Query Path Hostname Port
`);

/** Java standard library methods (String, collections, streams, Optional, Object, IO). */
const JAVA_METHODS = words(`
  add addAll remove removeAll contains containsKey containsValue get put putAll putIfAbsent size isEmpty clear
  iterator stream forEach map filter collect reduce findFirst findAny anyMatch allMatch noneMatch sorted distinct
  orElse orElseGet orElseThrow isPresent ifPresent of ofNullable
  equals hashCode toString compareTo length charAt substring indexOf lastIndexOf startsWith endsWith trim split
  replace replaceAll format toLowerCase toUpperCase matches getClass clone valueOf append insert reverse
  close read write flush println print printf next hasNext keySet values entrySet getKey getValue
  start join interrupt run call submit shutdown wait notify notifyAll
`);

/** Rust std methods (Option, Result, Vec, String, HashMap, iterators, IO). */
const RUST_METHODS = words(`
  unwrap expect unwrap_or unwrap_or_else unwrap_or_default ok err is_some is_none is_ok is_err map map_err and_then
  or_else ok_or ok_or_else as_ref as_mut as_str as_slice as_bytes take replace clone to_string to_owned into
  iter iter_mut into_iter collect filter filter_map fold for_each enumerate zip chain rev skip take_while any all
  find position count sum min max last first next peekable cloned copied
  push pop insert remove get get_mut contains contains_key len is_empty clear extend retain sort sort_by dedup
  join split trim starts_with ends_with lines chars bytes parse format write write_all read read_to_string flush
  lock borrow borrow_mut send recv spawn entry or_insert or_insert_with keys values drain truncate
  capacity reserve reserve_exact shrink_to_fit set_len resize to_vec extend_from_slice copy_from_slice clone_from_slice
  split_at split_at_mut swap windows chunks chunks_exact as_ptr as_mut_ptr offset offset_from cast is_null
  load store fetch_add fetch_sub compare_exchange compare_exchange_weak
  wrapping_add wrapping_sub checked_add checked_sub saturating_add saturating_sub to_le_bytes to_be_bytes
`);

/** Python builtin functions: a bare call the file neither defines nor imports refers to these. */
const PYTHON_FUNCTIONS = words(`
  abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr
  dict dir divmod enumerate eval exec filter float format frozenset getattr globals hasattr hash help hex id input
  int isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property
  range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip __import__
`);

/** Go builtin functions. */
const GO_FUNCTIONS = words('append cap clear close complex copy delete imag len make max min new panic print println real recover');

/** JavaScript globals commonly called bare. */
const SCRIPT_FUNCTIONS = words(`
  require setTimeout setInterval clearTimeout clearInterval setImmediate queueMicrotask structuredClone fetch
  parseInt parseFloat isNaN isFinite encodeURIComponent decodeURIComponent encodeURI decodeURI atob btoa
  String Number Boolean Symbol BigInt Array Object Promise Error Date RegExp Map Set WeakMap WeakSet
`);

/** Rust prelude constructors. */
const RUST_FUNCTIONS = words('Some Ok Err Box Vec String drop');

const METHODS: Partial<Record<Language, ReadonlySet<string>>> = {
  python: PYTHON_METHODS,
  typescript: SCRIPT_METHODS,
  tsx: SCRIPT_METHODS,
  javascript: SCRIPT_METHODS,
  go: GO_METHODS,
  java: JAVA_METHODS,
  rust: RUST_METHODS,
};

const FUNCTIONS: Partial<Record<Language, ReadonlySet<string>>> = {
  python: PYTHON_FUNCTIONS,
  typescript: SCRIPT_FUNCTIONS,
  tsx: SCRIPT_FUNCTIONS,
  javascript: SCRIPT_FUNCTIONS,
  go: GO_FUNCTIONS,
  rust: RUST_FUNCTIONS,
};

/** True when `name` is a method of a builtin or standard type of the language. */
export function isBuiltinMethod(language: Language, name: string): boolean {
  return METHODS[language]?.has(name) ?? false;
}

/** True when `name` is a builtin function of the language (Python `open`, Go `len`, JS `fetch`). */
export function isBuiltinFunction(language: Language, name: string): boolean {
  return FUNCTIONS[language]?.has(name) ?? false;
}
