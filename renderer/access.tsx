import { useMemo, type ButtonHTMLAttributes, type ReactNode } from 'react';
import type { AccountRole, OperationName } from '../shared/api';
import { roleMayCall } from '../shared/api/access';
import { isDesktop } from './api';
import { useOp } from './query';

/**
 * What the signed-in account may do, from the same table the server's gate enforces
 * (shared/api/access.ts). The person at the machine (the desktop app, or `awb serve` on loopback
 * without accounts) may do everything; in team mode a button for an operation the role may not
 * call is disabled with the reason beside it, or left out where it would only be noise. The
 * server still checks every call: this only spares people a form they cannot send.
 */

export type Permission =
  | { allowed: true; reason?: undefined }
  | {
      allowed: false;
      /** Why, for a disabled button ("Only maintainers may do this; you are signed in as …"). */
      reason: string;
      /** Who may, and who is signed in: for saying why something is left out ("Only maintainers write packs; …"). */
      who: string;
      me: string;
    };

const ALLOWED: Permission = { allowed: true };

const WHO_MAY: Record<'annotators' | 'maintainers', string> = { annotators: 'annotators and maintainers', maintainers: 'maintainers' };

export interface Access {
  /** The signed-in account; null for the person at the machine. */
  me: { name: string; role: AccountRole } | null;
  may: (operation: OperationName) => Permission;
  /** Judging a queue: an account judges only as itself. */
  mayJudgeAs: (annotator: string) => Permission;
}

function accessFor(me: Access['me']): Access {
  if (!me) return { me, may: () => ALLOWED, mayJudgeAs: () => ALLOWED };
  const may = (operation: OperationName): Permission => {
    if (roleMayCall(me.role, operation)) return ALLOWED;
    const who = roleMayCall('annotator', operation) ? WHO_MAY.annotators : WHO_MAY.maintainers;
    const signedIn = `${me.name} (${me.role})`;
    return { allowed: false, reason: `Only ${who} may do this; you are signed in as ${signedIn}.`, who, me: signedIn };
  };
  const mayJudgeAs = (annotator: string): Permission => {
    const judging = may('judging:decide');
    if (!judging.allowed) return judging;
    if (me.role === 'maintainer' || annotator === me.name) return ALLOWED;
    return { allowed: false, reason: `You judge as ${me.name}, not as ${annotator}.`, who: annotator, me: me.name };
  };
  return { me, may, mayJudgeAs };
}

export function useAccess(): Access {
  const me = useOp('team:status', isDesktop ? null : {}).data?.me ?? null;
  return useMemo(() => accessFor(me), [me]);
}

/** Why an action is not open to this role, in the place the action would be; `what` names it when its button is left out ("create campaigns"). */
export function NotAllowed({ permission, what }: { permission: Permission; what?: string }) {
  if (permission.allowed) return null;
  return (
    <span className="small muted not-allowed" data-testid="not-allowed">
      {what ? `Only ${permission.who} ${what}; you are signed in as ${permission.me}.` : permission.reason}
    </span>
  );
}

/** A button for an operation: disabled, with the reason beside it, when the role may not call it. */
export function OpButton({
  operation,
  children,
  disabled,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { operation: OperationName; children: ReactNode }) {
  const permission = useAccess().may(operation);
  return (
    <>
      <button type="button" {...props} disabled={disabled || !permission.allowed} title={permission.reason ?? props.title}>
        {children}
      </button>
      <NotAllowed permission={permission} />
    </>
  );
}

/** A part of a screen only for those who may call the operation: left out for the others. */
export function IfAllowed({ operation, children }: { operation: OperationName; children: ReactNode }) {
  return useAccess().may(operation).allowed ? <>{children}</> : null;
}
