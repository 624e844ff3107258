/**
 * @module What was asked of an assistant and not answered, as the API groups it: near-duplicate questions together,
 * most asked first, each with the closest passage found, or the document indexed since that now answers it. It is the
 * centre's list of what to write next.
 */
import { useUnansweredQuestions } from '@therapy-care/react'
import type { Schema } from '@therapy-care/sdk'
import { when } from '../parts/format.ts'
import { ProblemMessage } from '../parts/problem.tsx'
import { DECLINE_WORDS } from './knowledge-question.tsx'

type Group = Schema<'UnansweredGroup'>

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

/** Why one kept question is in the report: a decline rule, or an answer at a low score. */
function why(q: Group['questions'][number]): string {
  if (q.answered) return `answered at a low score (${q.score.toFixed(2)})`
  // Typed as any string by the API: a rule added later reads as "declined" until the console knows it.
  const rule = q.declinedBy as keyof typeof DECLINE_WORDS | null
  return rule && Object.hasOwn(DECLINE_WORDS, rule) ? DECLINE_WORDS[rule] : 'declined'
}

function GroupCard({ group }: { group: Group }) {
  return (
    <li className="card">
      <h3>“{group.question}”</h3>
      <p>
        Asked {plural(group.count, 'time', 'times')}, last {when(group.lastAskedAt)}{' '}
        {group.answeredBy ? (
          <span className="status status-answered">Now answered</span>
        ) : (
          <span className="status status-open">Open</span>
        )}
      </p>
      {group.answeredBy ? (
        <>
          <p>
            <strong>{group.answeredBy.documentName}</strong> answers it since {when(group.answeredBy.at)}:
          </p>
          <blockquote>{group.answeredBy.quote}</blockquote>
        </>
      ) : group.closest ? (
        <>
          <p>
            Closest passage found, in <strong>{group.closest.documentName}</strong> (not an answer):
          </p>
          <blockquote>{group.closest.quote}</blockquote>
        </>
      ) : (
        <p className="quiet">Nothing in the documents came close: this needs a new document.</p>
      )}
      <details>
        <summary>
          Latest questions<span className="visually-hidden"> like “{group.question}”</span>
        </summary>
        <ul>
          {group.questions.map((q) => (
            <li key={q.id}>
              “{q.question}” <span className="quiet">{when(q.askedAt)}</span>: {why(q)}
            </li>
          ))}
        </ul>
      </details>
    </li>
  )
}

export function UnansweredQuestions({ assistantId, name }: { assistantId: string; name: string }) {
  const report = useUnansweredQuestions(assistantId)
  const r = report.data
  return (
    <section aria-labelledby="unanswered-heading">
      <h2 id="unanswered-heading">Questions {name} could not answer</h2>
      {report.isPending && <p role="status">Loading the questions…</p>}
      {report.isError && <ProblemMessage error={report.error} />}
      {r && r.data.length === 0 && (
        <p className="empty">
          No unanswered question since {when(r.since)}. Ask one above to see how a question it cannot answer shows here.
        </p>
      )}
      {r && r.data.length > 0 && (
        <>
          <p>
            Since {when(r.since)}: {plural(r.questions, 'question', 'questions')} in{' '}
            {plural(r.groups, 'group', 'groups')}, {r.open} open, {r.nowAnswered} now answered by a document indexed
            since.
            {r.pendingRechecks > 0 &&
              ` ${plural(r.pendingRechecks, 'group is', 'groups are')} still to be checked against the new documents.`}
          </p>
          <ol className="cards">
            {r.data.map((group) => (
              <GroupCard key={group.id} group={group} />
            ))}
          </ol>
        </>
      )}
    </section>
  )
}
