/**
 * Which member of a federated view (federated-view.ts) a `<repo>::path` or plain path is read by: the
 * named member (the workspace's for a plain path), or — for a path under another member's root
 * inside it (`ws::lib/src/a.ts` with `ws/lib` federated too) — that member (`lib::src/a.ts`): a
 * file is its nearest root's (federated-nesting.ts).
 */
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { EngineError, EngineErrorCodes } from './engine/errors.ts';
import { nestedFolderOf } from './federated-nesting.ts';
import { NAMESPACE_SEPARATOR, type FederationMember } from './federated-view-names.ts';

/** A member and a path (or other text) of it. */
export interface MemberPath {
  member: FederationMember;
  rest: string;
}

/** Whether a member's path is its own: under no other member's root inside it. */
export function ownsPath(member: FederationMember, path: string): boolean {
  return !member.nested?.length || nestedFolderOf(path, member.nested) === null;
}

/** A member's path under another member's root inside it is that member's; any other text stays the member's. */
export function ownerOf(members: readonly FederationMember[], member: FederationMember, rest: string): MemberPath {
  if (!member.nested?.length) return { member, rest };
  // Normalized first: `lib/../src/a.ts` is the member's own `src/a.ts`; a path climbing out is left to the member's own refusal.
  const path = posix.normalize(rest.trim().replace(/\\/g, '/'));
  const f = path.startsWith('..') || posix.isAbsolute(path) ? null : nestedFolderOf(path, member.nested);
  const inner = f && members.find((m) => m.name === f.member);
  return inner && f ? ownerOf(members, inner, path.slice(f.folder.length) || '.') : { member, rest };
}

/** `<repo>::text` of a member, or null. */
export function splitMember(members: readonly FederationMember[], text: string): MemberPath | null {
  const at = text.indexOf(NAMESPACE_SEPARATOR);
  if (at <= 0) return null;
  const member = members.find((m) => m.name === text.slice(0, at));
  return member ? ownerOf(members, member, text.slice(at + NAMESPACE_SEPARATOR.length)) : null;
}

/** The member a bare repository name (`lib`, `lib/`) names, when the workspace holds no path by that name. */
export function wholeMemberOf(members: readonly FederationMember[], userPath: string): FederationMember | undefined {
  const text = userPath.trim().replace(/\/+$/, '');
  const member = members.find((m) => m.name === text);
  if (!member) return undefined;
  const own = members.find((m) => m.own);
  return own && existsSync(own.engine.resolvePath(text).absolute) ? undefined : member;
}

/** The member a user's path is read by: `<repo>::path`, else the workspace's. */
export function memberOfPath(members: readonly FederationMember[], userPath: string): MemberPath {
  const split = splitMember(members, userPath);
  if (split) return split;
  const own = members.find((m) => m.own);
  if (own) return ownerOf(members, own, userPath);
  throw new EngineError(EngineErrorCodes.PATH_NOT_FOUND, `${userPath} names no repository of the federation`, `prefix the path with a repository name: ${members.map((m) => `${m.name}${NAMESPACE_SEPARATOR}`).join(', ')}`);
}
