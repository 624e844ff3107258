/**
 * @module Asking an assistant's knowledge a question, as a parent or a member of staff would: the answer and its
 * sources, or, when it declines, why in plain words (the rule, its score against the threshold) and the passages it
 * found closest, which tell the centre what its documents lack.
 */
import { useAskKnowledge } from '@therapy-care/react'
import type { Schema } from '@therapy-care/sdk'
import { useState, type FormEvent } from 'react'
import { fieldErrors, ProblemMessage } from '../parts/problem.tsx'

type Answer = Schema<'KnowledgeAnswer'>
type DeclineRule = NonNullable<Schema<'AnswerDecision'>['declinedBy']>

/** Each decline rule in words (the rules are documented on AnswerDecision.declinedBy). */
export const DECLINE_WORDS: Record<DeclineRule, string> = {
  no_passages: 'Nothing in the assistant’s documents came close to the question.',
  below_threshold: 'No sentence in the documents is close enough to the question.',
  word_not_in_knowledge: 'A word of the question is not in the documents.',
  answer_kind_missing: 'The closest sentences do not carry the kind of answer the question asks for.',
  named_day_missing: 'The question names a day or a season that the closest passage neither names nor dates.',
  name_missing: 'The closest passage does not name the programme or person the question names.',
  chat_model_declined: 'The chat model found no answer in the passages it was given.',
  no_citation: 'The chat model answered without citing a passage, so its answer was not used.',
}

const METHOD_WORDS: Record<Schema<'AnswerDecision'>['method'], string> = {
  semantic: 'by meaning (sentence similarity)',
  lexical:
    'by the question’s words, as the documents have no sentence vectors (indexing them again lets it score by meaning)',
  chat: 'by the chat model, from the passages found',
}

const score = (value: number) => value.toFixed(2)

function Decision({ decision }: { decision: Answer['decision'] }) {
  const { declinedBy, answerKind } = decision
  const versus = `The closest sentence scored ${score(decision.score)}; an answer needs ${score(decision.threshold)}.`
  return (
    <>
      <p>
        {declinedBy ? DECLINE_WORDS[declinedBy] : 'Answered.'}
        {declinedBy === 'answer_kind_missing' && answerKind && ` It asks for: ${answerKind}.`}
      </p>
      <p>
        {versus} Scored {METHOD_WORDS[decision.method]}.
        {decision.chatFallback && ' The chat model failed for this question, so the offline answerer answered it.'}
      </p>
      {declinedBy && (
        <p className="quiet">
          Rule <code>{declinedBy}</code>: adding a document that says this plainly is what lets it answer.
        </p>
      )}
    </>
  )
}

function AnswerView({ answer }: { answer: Answer }) {
  const passages = answer.answered ? answer.citations : answer.related
  return (
    <div className={answer.answered ? 'answer' : 'answer answer-declined'}>
      <h3>{answer.answered ? 'Answer' : 'It did not answer'}</h3>
      <p>{answer.answer}</p>
      <h4>{answer.answered ? 'How it was chosen' : 'Why'}</h4>
      <Decision decision={answer.decision} />
      {passages.length > 0 && (
        <>
          <h4>{answer.answered ? 'Sources' : 'Closest passages it found (not answers)'}</h4>
          <ol>
            {passages.map((p, i) => (
              <li key={`${p.documentId}-${p.startOffset}-${i}`}>
                <strong>{p.documentName}</strong>
                {p.page !== undefined && `, page ${p.page}`}
                {p.headingPath.length > 0 && <span className="quiet"> ({p.headingPath.join(' › ')})</span>}
                <span className="quiet"> score {score(p.score)}</span>
                <blockquote>{p.quote}</blockquote>
              </li>
            ))}
          </ol>
        </>
      )}
      {!answer.answered && passages.length === 0 && (
        <p className="quiet">No passage came close enough to offer: the documents do not cover this question.</p>
      )}
    </div>
  )
}

export function KnowledgeQuestion({
  assistants,
  assistantId: initial,
}: {
  assistants: ReadonlyArray<{ id: string; name: string }>
  assistantId: string
}) {
  const ask = useAskKnowledge()
  const [assistantId, setAssistantId] = useState(initial)
  const [question, setQuestion] = useState('')
  const errors = fieldErrors(ask.error)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    ask.mutate({ assistantId, question: question.trim() })
  }
  return (
    <section aria-labelledby="question-heading">
      <h2 id="question-heading">Ask a question</h2>
      <form onSubmit={submit} noValidate>
        <ProblemMessage error={ask.error} />
        <label htmlFor="question-assistant">Assistant</label>
        <select id="question-assistant" value={assistantId} onChange={(e) => setAssistantId(e.target.value)}>
          {assistants.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
        <label htmlFor="question-text">Question</label>
        <textarea
          id="question-text"
          rows={3}
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          aria-invalid={errors.question ? true : undefined}
          aria-describedby={errors.question ? 'question-text-error' : 'question-text-hint'}
        />
        <p id="question-text-hint" className="quiet">
          As a parent would ask it, e.g. “How much notice do we need to give to cancel a session?”
        </p>
        {errors.question && (
          <p id="question-text-error" className="field-error">
            {errors.question}
          </p>
        )}
        <button type="submit" disabled={ask.isPending}>
          {ask.isPending ? 'Asking…' : 'Ask'}
        </button>
      </form>
      <div aria-live="polite">
        {ask.isPending && <p>Looking through the documents…</p>}
        {/* A new question clears the last answer: there is none while it is asked. */}
        {ask.data && <AnswerView answer={ask.data} />}
      </div>
    </section>
  )
}
