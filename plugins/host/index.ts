/** The host verbs: help, health, session_handshake, trust_selftest, recovery_playbook, doctor. */
import { definePlugin } from '../../core/index.ts';
import { helpVerb } from './verbs/help.ts';
import { healthVerb } from './verbs/health.ts';
import { sessionHandshakeVerb } from './verbs/session_handshake.ts';
import { trustSelftestVerb } from './verbs/trust_selftest.ts';
import { recoveryPlaybookVerb } from './verbs/recovery_playbook.ts';
import { doctorVerb } from './verbs/doctor.ts';
import { doctrineResource, verbDocResource, workflowPrompt } from './resources.ts';

export default definePlugin({
  name: 'host',
  version: '0.1.0',
  description: 'Documentation, health and trust verbs over the catalog.',
  apply(ctx) {
    const catalog = ctx.catalog;
    ctx.registerVerb(helpVerb(catalog));
    ctx.registerVerb(healthVerb(ctx, catalog));
    ctx.registerVerb(sessionHandshakeVerb(ctx, catalog));
    ctx.registerVerb(trustSelftestVerb(ctx, catalog));
    ctx.registerVerb(recoveryPlaybookVerb(ctx, catalog));
    ctx.registerVerb(doctorVerb(ctx, catalog));
    ctx.registerResource(doctrineResource(ctx));
    ctx.registerResource(verbDocResource(catalog));
    ctx.registerPrompt(workflowPrompt(catalog));
    ctx.hooks.workflows.tap('host', (list) => [
      ...list,
      {
        name: 'first contact',
        when: 'orient: a new session on this server',
        steps: [
          { verb: 'session_handshake', why: 'report the verbs your host shows; get the trust mode' },
          { verb: 'health', why: 'tier, gates, counts and graph state' },
          { verb: 'help', why: 'find the verbs for your task (every verb is callable)' },
        ],
      },
      {
        name: 'recover',
        when: 'diagnose: a call failed or answers look wrong',
        steps: [
          { verb: 'help', why: 'mode recovery with the error text' },
          { verb: 'trust_selftest', why: 'check the server and your binding' },
          { verb: 'recovery_playbook', why: 'ordered steps to a trusted session' },
          { verb: 'doctor', why: 'concrete findings with fixes' },
        ],
      },
    ]);
  },
});
