import { useRef, useState } from 'preact/hooks';
import { ErrorView } from './content-view.js';
import { InputRequests } from './input-requests.js';
import type { McpClient, RpcOutcome } from './mcp-client.js';

type Progress = { progress: number; total?: number; message?: string };

/** Where a call is: sent, waiting for the user's answers, followed as a task, or ended. */
export type CallPhase =
  | { kind: 'idle' }
  | { kind: 'running'; progress?: Progress }
  | { kind: 'input'; requests: Record<string, any>; requestState?: string; round: number }
  | { kind: 'task'; task: any }
  | { kind: 'done'; result: any; progress?: Progress }
  | { kind: 'failed'; outcome: RpcOutcome };

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one request to its end as a client does: answers `input_required` with a retry carrying the user's
 * answers and the `requestState`, follows a task with `tasks/get` until it ends (answering its questions with
 * `tasks/update`), and shows progress notifications on the way. A 401 is reported to `onChallenge`.
 */
export function useCall(client: McpClient, method: string, onChallenge: (outcome: RpcOutcome) => void) {
  const [phase, setPhase] = useState<CallPhase>({ kind: 'idle' });
  const sent = useRef<{ params: Record<string, unknown>; headers?: Record<string, string> }>(undefined);
  const generation = useRef(0);
  // The last progress notification stays shown with the result: a quick call's bar would otherwise only flash.
  const lastProgress = useRef<Progress | undefined>(undefined);

  const settle = async (outcome: RpcOutcome, run: number, round: number): Promise<void> => {
    if (run !== generation.current) return;
    if (outcome.status === 401 || outcome.status === 403) onChallenge(outcome);
    const result = outcome.result;
    if (!result) return setPhase({ kind: 'failed', outcome });
    if (result.resultType === 'input_required')
      return setPhase({
        kind: 'input',
        requests: result.inputRequests ?? {},
        requestState: result.requestState,
        round,
      });
    if (result.resultType === 'task') return follow(result, run);
    setPhase({ kind: 'done', result, progress: lastProgress.current });
  };

  const follow = async (task: any, run: number): Promise<void> => {
    for (;;) {
      if (run !== generation.current) return;
      if (TERMINAL.has(task.status)) {
        if (task.status === 'completed') return setPhase({ kind: 'done', result: task.result });
        return setPhase({ kind: 'task', task });
      }
      setPhase({ kind: 'task', task });
      if (task.status === 'input_required') return;
      await sleep(Math.min(Math.max(task.pollIntervalMs ?? 1000, 100), 5000));
      const outcome = await client.request('tasks/get', { taskId: task.taskId });
      if (!outcome.result) return settle(outcome, run, 0);
      task = outcome.result;
    }
  };

  const send = async (params: Record<string, unknown>, round: number, run: number) => {
    const outcome = await client.request(method, params, {
      headers: sent.current?.headers,
      onNotification: (notification) => {
        if (notification.method !== 'notifications/progress' || run !== generation.current) return;
        lastProgress.current = notification.params;
        setPhase({ kind: 'running', progress: notification.params });
      },
    });
    await settle(outcome, run, round);
  };

  return {
    phase,
    start(params: Record<string, unknown>, headers?: Record<string, string>) {
      const run = ++generation.current;
      sent.current = { params, headers };
      lastProgress.current = undefined;
      setPhase({ kind: 'running' });
      const progressToken = `playground-${run}`;
      void send({ ...params, _meta: { progressToken } }, 0, run);
    },
    async answer(answers: Record<string, unknown>) {
      const run = generation.current;
      if (phase.kind === 'input') {
        setPhase({ kind: 'running' });
        const retry = { ...sent.current!.params, inputResponses: answers, requestState: phase.requestState };
        return send(retry, phase.round + 1, run);
      }
      if (phase.kind === 'task') {
        const next = await answerTask(client, phase.task.taskId, answers);
        return next.result ? follow(next.result, run) : settle(next, run, 0);
      }
    },
    async cancel() {
      if (phase.kind === 'task') await client.request('tasks/cancel', { taskId: phase.task.taskId });
    },
  };
}

export type CallHandle = ReturnType<typeof useCall>;

/** A task's questions answered with `tasks/update`; the task as it then is, or the refusal. */
async function answerTask(client: McpClient, taskId: string, answers: Record<string, unknown>): Promise<RpcOutcome> {
  const update = await client.request('tasks/update', { taskId, inputResponses: answers });
  return update.error ? update : client.request('tasks/get', { taskId });
}

/** The call's state on the page; the ended call's answer (`render`) or error goes in `data-testid="result"`. */
export function CallView({ call, render }: { call: CallHandle; render(result: any): preact.ComponentChild }) {
  const { phase } = call;
  switch (phase.kind) {
    case 'idle':
      return null;
    case 'running':
      return (
        <p class="running" data-testid="progress">
          Running… <ProgressLine progress={phase.progress} />
        </p>
      );
    case 'input':
      return <InputRequests key={phase.round} requests={phase.requests} onSubmit={(a) => void call.answer(a)} />;
    case 'task':
      return <TaskView call={call} task={phase.task} />;
    case 'done':
      return (
        <section data-testid="result" class={phase.result?.isError ? 'result is-error' : 'result'}>
          {phase.progress ? (
            <p class="muted">
              Progress: <ProgressLine progress={phase.progress} />
            </p>
          ) : null}
          {render(phase.result)}
        </section>
      );
    case 'failed':
      return (
        <section data-testid="result" class="result is-error">
          <ErrorView error={phase.outcome.error} status={phase.outcome.status} challenge={phase.outcome.challenge} />
        </section>
      );
  }
}

function ProgressLine({ progress }: { progress?: Progress }) {
  if (!progress) return null;
  return (
    <>
      <progress value={progress.progress} max={progress.total ?? undefined} /> {progress.progress}
      {progress.total !== undefined ? ` / ${progress.total}` : ''} {progress.message ?? ''}
    </>
  );
}

function TaskView({ call, task }: { call: CallHandle; task: any }) {
  return (
    <div class="task">
      <p>
        Task <code>{task.taskId}</code>: <strong data-testid="task-status">{task.status}</strong>
        {task.statusMessage ? <span data-testid="task-message"> · {task.statusMessage}</span> : null}
      </p>
      {task.status === 'working' || task.status === 'input_required' ? (
        <button type="button" onClick={() => void call.cancel()}>
          Cancel task
        </button>
      ) : null}
      {task.status === 'input_required' ? (
        <InputRequests requests={task.inputRequests ?? {}} onSubmit={(a) => void call.answer(a)} />
      ) : null}
      {task.status === 'failed' ? (
        <section data-testid="result" class="result is-error">
          <ErrorView error={task.error ?? { code: 0, message: task.statusMessage ?? 'failed' }} />
        </section>
      ) : null}
      {task.status === 'cancelled' ? (
        <section data-testid="result" class="result is-error">
          Cancelled.
        </section>
      ) : null}
    </div>
  );
}
